namespace AmqpConformance.Harness.Pooling;

/// <summary>Thrown by <see cref="TrackingArrayPool.AssertClean"/> when the ledger has findings; the message lists every
/// one.</summary>
public sealed class PoolLedgerException : Exception
{
    /// <summary>Creates the exception from a report that is not clean.</summary>
    public PoolLedgerException(PoolLedgerReport report)
        : base((report ?? throw new ArgumentNullException(nameof(report))).ToString())
    {
        Report = report;
    }

    /// <summary>The report the message was made from.</summary>
    public PoolLedgerReport Report { get; }
}
