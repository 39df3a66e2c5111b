namespace AmqpConformance.Harness.Verdicts;

/// <summary>What a pool ledger can hold against a writer.</summary>
public enum PoolIssueKind
{
    /// <summary>A rental still outstanding after the writer was disposed.</summary>
    Leak,
    /// <summary>An array returned twice.</summary>
    DoubleReturn,
    /// <summary>An array returned that the pool never rented.</summary>
    ForeignReturn,
    /// <summary>An array written to after it was returned.</summary>
    WriteAfterReturn,
}
