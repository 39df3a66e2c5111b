using AmqpConformance.BrokenWriters;
using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Properties.Tests.Running;

public class ScenarioDeviationTests
{
    private static PropertyRunOptions Options(params ScenarioDeviation[] deviations) =>
        new() { MaxTest = 30, KnownScenarioDeviations = deviations };

    [Fact]
    public void Cases_a_deviation_covers_are_counted_and_not_judged()
    {
        var outcome = ConformanceProperties.Check(BrokenWriterModes.EarlyCompletion, InvariantNames.Bodies,
            Options(new ScenarioDeviation("everything", "test: covers every scenario", _ => true)));

        Assert.True(outcome.Holds, outcome.ToString());
        Assert.True(outcome.KnownDeviationsSeen.GetValueOrDefault("everything") > 0, outcome.ToString());
    }

    [Fact]
    public void Cases_it_does_not_cover_still_fail()
    {
        var outcome = ConformanceProperties.Check(BrokenWriterModes.EarlyCompletion, InvariantNames.Bodies,
            Options(new ScenarioDeviation("nothing", "test: covers no scenario", _ => false)));

        Assert.False(outcome.Holds);
        Assert.Empty(outcome.KnownDeviationsSeen);
    }
}
