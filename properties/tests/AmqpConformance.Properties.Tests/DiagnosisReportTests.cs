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

    [Fact]
    public void A_cause_that_explains_several_violations_in_a_row_is_printed_once()
    {
        const string cause = "Frame 36 follows call 12 (channel 3), which was cancelled during its flush ...";
        Violation Torn(string invariant, string rule, string? why = cause) =>
            new(invariant, rule, rule + " at frame 36", [36], [12]) { Cause = why };
        var outcome = TestOutcomes.OneCallFailure(
            new Verdict(
                InvariantNames.WireFormat,
                [
                    Torn(InvariantNames.WireFormat, "bad-frame-end"),
                    Torn(InvariantNames.Bodies, "body-mismatch"),
                    Torn(InvariantNames.Cancellation, "ghost-after-cancel", why: null),
                    Torn(InvariantNames.Broker, "bad-frame-end"),
                ]
            )
        );
        string report = outcome.Describe();
        Assert.Equal(2, report.Split("Likely cause: " + cause).Length - 1);
        Assert.Contains(
            "bodies/body-mismatch: body-mismatch at frame 36 frames [36] calls [12] Likely cause: as above.",
            report
        );
        // After a violation without one, the same cause is printed again in full.
        Assert.Contains(
            "broker/bad-frame-end: bad-frame-end at frame 36 frames [36] calls [12] Likely cause: " + cause,
            report
        );
    }
}
