namespace AmqpConformance.FakeBroker;

/// <summary>
/// How much a <see cref="FakeAmqpBroker"/> keeps of connections that have ended. Open connections are always kept. An ended
/// connection keeps its whole <see cref="BrokerConnection"/> (frame log, findings, published messages) in
/// <see cref="FakeAmqpBroker.Connections"/> while it fits both budgets below; past them the oldest-ended are evicted first,
/// and only their <see cref="ConnectionSummary"/> remains (in <see cref="FakeAmqpBroker.ConnectionSummaries"/>, itself
/// bounded by <see cref="MaxSummaries"/>). The counters (<see cref="FakeAmqpBroker.AcceptedConnections"/>,
/// <see cref="FakeAmqpBroker.EvictedConnections"/>) count every connection. Immutable.
/// </summary>
/// <remarks>
/// The defaults (100 ended connections, 64 MiB of estimated frame logs, 10,000 summaries) keep everything a test
/// normally looks at, while a broker that serves connections for hours stays flat in memory: evicted connections are
/// released to the garbage collector unless the caller still holds them. Use <see cref="Unlimited"/> to keep every
/// connection (what the process-lifetime broker did before budgets existed).
/// </remarks>
public sealed record ConnectionRetention
{
    /// <summary>How many ended connections keep their <see cref="BrokerConnection"/>; null = no count limit.
    /// Default 100. 0 evicts each connection as it ends.</summary>
    public int? MaxEndedConnections
    {
        get;
        init =>
            field = value is null or >= 0
                ? value
                : throw new ArgumentOutOfRangeException(
                    nameof(MaxEndedConnections),
                    value,
                    "MaxEndedConnections cannot be negative (null = no limit)."
                );
    } = 100;

    /// <summary>How many bytes of frame logs the ended connections may hold together, as estimated by
    /// <see cref="ConnectionSummary.EstimatedBytes"/>; null = no byte limit. Default 64 MiB. The connection that
    /// ended last is never evicted for bytes alone (only by <see cref="MaxEndedConnections"/>), so a test can always
    /// look at the connection it just finished, however large its log.</summary>
    public long? MaxEndedLogBytes
    {
        get;
        init =>
            field = value is null or >= 0
                ? value
                : throw new ArgumentOutOfRangeException(
                    nameof(MaxEndedLogBytes),
                    value,
                    "MaxEndedLogBytes cannot be negative (null = no limit)."
                );
    } = 64L * 1024 * 1024;

    /// <summary>How many summaries of ended connections <see cref="FakeAmqpBroker.ConnectionSummaries"/> keeps (the newest;
    /// each is a few hundred bytes). Default 10,000; 0 keeps none.</summary>
    public int MaxSummaries
    {
        get;
        init =>
            field =
                value >= 0
                    ? value
                    : throw new ArgumentOutOfRangeException(
                        nameof(MaxSummaries),
                        value,
                        "MaxSummaries cannot be negative."
                    );
    } = 10_000;

    /// <summary>The defaults: 100 ended connections, 64 MiB of estimated frame logs, 10,000 summaries.</summary>
    public static ConnectionRetention Default { get; } = new();

    /// <summary>Keeps every connection and every summary for the broker's lifetime (memory grows with each
    /// connection).</summary>
    public static ConnectionRetention Unlimited { get; } =
        new()
        {
            MaxEndedConnections = null,
            MaxEndedLogBytes = null,
            MaxSummaries = int.MaxValue,
        };
}
