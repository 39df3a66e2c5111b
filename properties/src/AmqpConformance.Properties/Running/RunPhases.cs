namespace AmqpConformance.Properties.Running;

/// <summary>Where one writer-level run spent its time (for the case-throughput benchmark).</summary>
/// <param name="Open">Opening the case: transport, broker connection, handshake, channels, the writer.</param>
/// <param name="Drive">Running the calls (free or scripted, settling between steps).</param>
/// <param name="Finish">Visibility check, disposal, the last settle, ending the connection.</param>
/// <param name="Evidence">Collecting the evidence (frame log snapshot, ledgers).</param>
public sealed record RunPhases(TimeSpan Open, TimeSpan Drive, TimeSpan Finish, TimeSpan Evidence);
