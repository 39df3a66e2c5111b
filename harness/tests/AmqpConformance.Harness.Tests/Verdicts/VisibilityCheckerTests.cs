using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Verdicts;

public class VisibilityCheckerTests
{
    [Fact]
    public void Every_lapse_is_a_violation_naming_its_calls_and_where_it_was_seen()
    {
        var b = new WireLogBuilder();
        Assert.True(new VisibilityChecker().Run(b.Evidence()).Holds);
        var lapse = new VisibilityLapse(
            TimeSpan.FromMilliseconds(30),
            TimeSpan.FromSeconds(2),
            [3, 4],
            "before call 5"
        );
        var v = new VisibilityChecker()
            .Run(b.Evidence(e => e with { VisibilityLapses = [lapse] }))
            .Single("not-flushed");
        Assert.Equal([3, 4], v.Calls);
        Assert.Contains("before call 5", v.Message, StringComparison.Ordinal);
        Assert.Contains("idle for 2000 ms", v.Message, StringComparison.Ordinal);
    }
}
