namespace AmqpConformance.Harness.Verdicts;

/// <summary>What the harness's tracking pool saw during one run, taken after the writer was disposed.</summary>
/// <param name="Rentals">Arrays rented.</param>
/// <param name="Returns">Arrays returned (including bad returns).</param>
/// <param name="Issues">Leaks, double and foreign returns, writes after return.</param>
public sealed record PoolLedgerSummary(long Rentals, long Returns, IReadOnlyList<PoolIssue> Issues)
{
    /// <summary>A ledger with nothing rented and nothing wrong.</summary>
    public static PoolLedgerSummary Empty { get; } = new(0, 0, []);
}
