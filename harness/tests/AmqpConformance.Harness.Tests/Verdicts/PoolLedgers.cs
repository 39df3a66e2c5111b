using AmqpConformance.Harness.Pooling;

namespace AmqpConformance.Harness.Tests.Verdicts;

/// <summary>Pool ledgers for checker tests.</summary>
internal static class PoolLedgers
{
    /// <summary>A ledger with <paramref name="rents"/> rents, <paramref name="returns"/> returns and these
    /// findings.</summary>
    public static PoolLedgerReport With(long rents, long returns, params PoolFinding[] findings) =>
        new(rents, returns, 0, 0, [], findings);

    /// <summary>A finding of <paramref name="kind"/> about array #1 with <paramref name="message"/>.</summary>
    public static PoolFinding Finding(PoolFindingKind kind, string message) => new(kind, 1, 4096, null, message);
}
