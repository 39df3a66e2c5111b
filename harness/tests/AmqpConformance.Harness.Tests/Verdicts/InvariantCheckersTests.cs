using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Verdicts;

public class InvariantCheckersTests
{
    [Fact]
    public void There_is_one_checker_per_invariant_name_in_order()
    {
        Assert.Equal(InvariantNames.All, InvariantCheckers.All.Select(c => c.Invariant));
        Assert.Throws<ArgumentException>(() => InvariantCheckers.For("no-such-invariant"));
    }

    [Fact]
    public void A_clean_multi_publisher_run_holds_every_invariant()
    {
        var b = new WireLogBuilder(8192);
        for (int i = 0; i < 6; i++)
        {
            byte[] body = WireLogBuilder.Bytes(i * 5000, i);
            b.Publish((ushort)(1 + i % 2), i, body);
            b.Call(i, body, i * 10, i * 10 + 5, publisher: i % 2, index: i / 2, channel: (ushort)(1 + i % 2));
        }
        var verdicts = InvariantCheckers.CheckAll(b.Evidence());
        Assert.All(verdicts, v => Assert.True(v.Holds, v.ToString()));
        Assert.Equal(InvariantNames.All.Count, verdicts.Count);
    }

    [Fact]
    public void Routing_keys_round_trip_through_a_publish_payload()
    {
        Assert.Equal(12, CallCorrelation.CallIdFrom(CallCorrelation.RoutingKeyFor(12)));
        Assert.Null(CallCorrelation.CallIdFrom("orders"));
        var b = new WireLogBuilder();
        b.Method(1, 345);
        var wire = WireAssembly.From(b.Evidence());
        Assert.Equal(345, Assert.Single(wire.Commands).CallId);
    }
}
