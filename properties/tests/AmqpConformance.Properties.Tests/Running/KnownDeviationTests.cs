using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>Known deviations cover exactly their symptom: the rules they name, in the scenarios they accept.</summary>
public class KnownDeviationTests
{
    /// <summary>A run whose evidence always shows one double return (rule "double-return") and nothing else.</summary>
    private static RunResult DoubleReturnRun(Scenario scenario) =>
        new(
            scenario,
            new ConformanceEvidence
            {
                Frames = [],
                Calls = [],
                FrameMax = scenario.FrameMax,
                Pool = new PoolLedgerReport(
                    1,
                    1,
                    0,
                    0,
                    [],
                    [new PoolFinding(PoolFindingKind.DoubleReturn, 1, 64, null, "array #1 returned twice")]
                ),
            },
            new FrameLog()
        );

    private static PropertyOutcome Check(params KnownDeviation[] deviations) =>
        ConformanceProperties.Check(
            "double-returner",
            InvariantNames.Pools,
            new PropertyRunOptions { MaxTest = 20, KnownDeviations = deviations },
            DoubleReturnRun
        );

    [Fact]
    public void Cases_a_deviation_covers_are_counted_and_not_judged()
    {
        var outcome = Check(
            new KnownDeviation("everything", "test: covers the symptom everywhere", ["double-return"], _ => true)
        );
        Assert.True(outcome.Holds, outcome.Describe());
        Assert.Equal(20, outcome.KnownDeviationsSeen.GetValueOrDefault("everything"));
    }

    [Fact]
    public void Cases_it_does_not_cover_still_fail()
    {
        var outcome = Check(new KnownDeviation("nowhere", "test: covers no scenario", ["double-return"], _ => false));
        Assert.False(outcome.Holds);
        Assert.Empty(outcome.KnownDeviationsSeen);
    }

    [Fact]
    public void Violations_of_other_rules_still_fail_in_the_scenarios_a_deviation_covers()
    {
        var outcome = Check(
            new KnownDeviation(
                "other-symptom",
                "test: names a rule the run never breaks",
                ["frames-not-contiguous"],
                _ => true
            )
        );
        Assert.False(outcome.Holds);
        Assert.Equal("double-return", Assert.Single(outcome.Verdict!.Violations).Rule);
        Assert.Empty(outcome.KnownDeviationsSeen);
    }
}
