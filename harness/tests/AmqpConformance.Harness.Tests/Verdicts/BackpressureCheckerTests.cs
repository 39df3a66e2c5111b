using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Verdicts;

public class BackpressureCheckerTests
{
    private readonly BackpressureChecker _checker = new();

    [Fact]
    public void Held_memory_within_the_bound_holds_and_over_it_is_caught()
    {
        var b = new WireLogBuilder();
        Assert.True(
            _checker
                .Run(b.Evidence(e => e with { Backpressure = new BackpressureSample(1000, 1000, "queue 1 x 1000") }))
                .Holds
        );
        var v = _checker
            .Run(b.Evidence(e => e with { Backpressure = new BackpressureSample(5000, 1000, "queue 1 x 1000") }))
            .Single("unbounded-buffering");
        Assert.Contains("5000", v.Message, StringComparison.Ordinal);
    }
}

public class BackpressureAcceptedCallsTests
{
    private readonly BackpressureChecker _checker = new();

    [Fact]
    public void More_calls_accepted_unflushed_than_the_capacity_allows_are_caught()
    {
        var b = new WireLogBuilder();
        var within = new BackpressureSample(10, 1000, "x")
        {
            PeakAcceptedUnflushed = 3,
            AcceptedBound = 3,
            AcceptedCalls = [0, 1, 2],
        };
        Assert.True(_checker.Run(b.Evidence(e => e with { Backpressure = within })).Holds);
        var beyond = within with { PeakAcceptedUnflushed = 5, AcceptedCalls = [0, 1, 2, 3, 4] };
        var v = _checker.Run(b.Evidence(e => e with { Backpressure = beyond })).Single("accepted-beyond-capacity");
        Assert.Equal([0, 1, 2, 3, 4], v.Calls);
        Assert.Contains("5 calls", v.Message, StringComparison.Ordinal);
    }
}
