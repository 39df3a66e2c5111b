using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Tests;

/// <summary>Property outcomes made by hand, for tests of how a failure is reported.</summary>
internal static class TestOutcomes
{
    /// <summary>The order property of writer "W" failed after one case, unshrunk, on a one-call counterexample, with
    /// <paramref name="verdict"/> (null: the shrunk case did not fail again), and no run, replay or time.</summary>
    public static PropertyOutcome OneCallFailure(Verdict? verdict) =>
        new(
            InvariantNames.Order,
            "W",
            1,
            0,
            new Scenario(
                4096,
                ChannelLayout.OwnChannel,
                [
                    [new CallStep(10)],
                ],
                Harness.Faults.FaultPlan.Empty
            ),
            verdict,
            null,
            null,
            TimeSpan.Zero
        );
}
