using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Properties.Tests;

/// <summary>A failure report prints each violation's diagnosis (<see cref="Violation.Cause"/>) after it.</summary>
public sealed class DiagnosisReportTests
{
    [Fact]
    public void A_failure_report_prints_the_cause_named_by_the_diagnosis()
    {
        const string cause =
            "Call 2's publish sequence number is one behind the broker's delivery tag after call 1 (same channel) was cancelled and its frames still went out.";
        var violation = new Violation(InvariantNames.Order, "confirm-tag-mismatch", "Call 2 ...", [3], [2])
        {
            Cause = cause,
        };
        var outcome = TestOutcomes.OneCallFailure(new Verdict(InvariantNames.Order, [violation]));
        Assert.Contains("order/confirm-tag-mismatch: Call 2 ...", outcome.Describe(), StringComparison.Ordinal);
        Assert.Contains("Likely cause: " + cause, outcome.Describe(), StringComparison.Ordinal);
    }
}
