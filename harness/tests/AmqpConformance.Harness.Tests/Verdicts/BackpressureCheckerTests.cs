using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Verdicts;

public class BackpressureCheckerTests
{
    private readonly BackpressureChecker _checker = new();

    [Fact]
    public void Held_memory_within_the_bound_holds_and_over_it_is_caught()
    {
        var b = new WireLogBuilder();
        Assert.True(_checker.Run(b.Evidence(e => e with { Backpressure = new BackpressureSample(1000, 1000, "queue 1 x 1000") })).Holds);
        var v = _checker.Run(b.Evidence(e => e with { Backpressure = new BackpressureSample(5000, 1000, "queue 1 x 1000") })).Single("unbounded-buffering");
        Assert.Contains("5000", v.Message, StringComparison.Ordinal);
    }
}
