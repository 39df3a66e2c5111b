using AmqpConformance.Properties;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.SelfTest;

/// <summary>What the conformance properties made of one zoo writer.</summary>
/// <param name="Entry">The writer.</param>
/// <param name="Failure">The first property that failed, or null when every property held.</param>
/// <param name="CasesRun">Cases run until the first failure (across the properties run before it), or in all when none
/// failed.</param>
/// <param name="Elapsed">Wall time, shrinking included.</param>
public sealed record KillResult(ZooEntry Entry, PropertyOutcome? Failure, int CasesRun, TimeSpan Elapsed)
{
    /// <summary>Wall time from the start to the end of the first failing case (before its shrinking); null when none
    /// failed.</summary>
    public TimeSpan? FirstFailureAfter { get; init; }

    /// <summary>Whether every property ran, as in a suite (<see cref="KillMatrix.Run"/> with <c>wholeSuite</c>), so
    /// that <see cref="Elapsed"/> is the time a suite of this writer takes to end; otherwise the run stopped at the
    /// first failing property.</summary>
    public bool WholeSuite { get; init; }

    /// <summary>Each property that ran, in order: its name, its wall time (shrinking included) and whether it
    /// held.</summary>
    public IReadOnlyList<(string Property, TimeSpan Elapsed, bool Holds)> PropertyTimes { get; init; } = [];

    /// <summary>Cases run in all (every property's, shrinking not counted).</summary>
    public int TotalCases { get; init; }

    /// <summary>Whether some property failed.</summary>
    public bool Caught => Failure is not null;

    /// <summary>Whether the outcome is the expected one: a broken writer caught, a correct one holding.</summary>
    public bool AsExpected => Caught != Entry.IsCorrect;

    /// <summary>The invariants the failing case violated, with the rules ("order/call-order"), distinct, in report
    /// order.</summary>
    public IReadOnlyList<string> Rules =>
        Failure?.Verdict is { } v ? [.. v.Violations.Select(x => $"{x.Invariant}/{x.Rule}").Distinct()] : [];
}
