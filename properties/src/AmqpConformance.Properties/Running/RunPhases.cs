namespace AmqpConformance.Properties.Running;

/// <summary>Where one writer-level run spent its time (for the case-throughput benchmark).</summary>
/// <param name="Open">Opening the case: transport, broker connection, handshake, channels, the writer.</param>
/// <param name="Drive">Running the calls (free or scripted, settling between steps).</param>
/// <param name="Finish">Visibility check, disposal, the last settle, ending the connection.</param>
/// <param name="Evidence">Collecting the evidence (frame log snapshot, ledgers).</param>
public sealed record RunPhases(TimeSpan Open, TimeSpan Drive, TimeSpan Finish, TimeSpan Evidence)
{
    /// <summary>Time the harness skipped on the case's clock instead of waiting it (a fault's grace period: see
    /// <see cref="WriterRunOptions.FaultGraceRealWait"/>); not part of the other phases.</summary>
    public TimeSpan Skipped { get; init; }

    /// <summary>How many times the harness gave the writer <see cref="WriterRunOptions.FaultGraceRealWait"/> of real
    /// time before a call (a call after a fault had succeeded and none had failed); each costs up to that
    /// long.</summary>
    public int FaultGraceWaits { get; init; }

    /// <summary>The real time those waits took together (each ends early once the machine is seen scheduling promptly:
    /// see <see cref="WriterRunOptions.FaultGraceQuietWindow"/>); part of <see cref="Drive"/>.</summary>
    public TimeSpan FaultGraceWaited { get; init; }
}
