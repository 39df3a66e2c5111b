namespace AmqpConformance.Harness.Verdicts;

/// <summary>One entry of a pool ledger's findings.</summary>
/// <param name="Kind">What went wrong.</param>
/// <param name="Description">A sentence naming the array (size, rental number) and, where known, where it was rented.</param>
public sealed record PoolIssue(PoolIssueKind Kind, string Description);
