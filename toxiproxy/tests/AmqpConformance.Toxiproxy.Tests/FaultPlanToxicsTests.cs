using AmqpConformance.Harness.Faults;

namespace AmqpConformance.Toxiproxy.Tests;

[Trait("Area", "Faults")]
public sealed class FaultPlanToxicsTests
{
    [Fact]
    public void Maps_each_fault_to_its_toxic_and_reports_approximations()
    {
        var plan = new FaultPlan(
            3,
            [
                new LatencyFault(40, 5),
                new SlicerFault(100, 20, 50) { Direction = FaultDirection.Downstream },
                new BandwidthFault(300),
                new LimitDataFault(9000),
                new BlackHoleFault(250),
                new SlowCloseFault(70),
                new ResetPeerFault(null, 15),
                new ResetPeerFault(1234),
                new StallFault(10, 100),
            ]
        );
        FaultPlanToxics.Mapping mapping = FaultPlanToxics.Map(plan);
        Assert.Equal(
            ["latency", "slicer", "bandwidth", "limit_data", "timeout", "slow_close", "reset_peer", "limit_data"],
            mapping.Toxics.Select(t => t.Type)
        );
        Assert.Equal("downstream", mapping.Toxics[1].Stream);
        Assert.All(mapping.Toxics.Where((_, i) => i != 1), t => Assert.Equal("upstream", t.Stream));
        Assert.Equal(40, mapping.Toxics[0].Attribute("latency"));
        Assert.Equal(5, mapping.Toxics[0].Attribute("jitter"));
        Assert.Equal(50, mapping.Toxics[1].Attribute("delay"));
        Assert.Equal(1234, mapping.Toxics[7].Attribute("bytes"));
        Assert.Equal(mapping.Toxics.Count, mapping.Toxics.Select(t => t.Name).Distinct().Count());
        Assert.Contains(mapping.Unmapped, n => n.Contains("stall", StringComparison.OrdinalIgnoreCase));
        Assert.Contains(mapping.Unmapped, n => n.Contains("limit_data 1234"));

        // And back: each toxic is applied by the embedded proxy as the fault it came from.
        Assert.Equal(plan.Faults[0], ToxicTypes.ToFault(mapping.Toxics[0]));
        Assert.Equal(plan.Faults[1], ToxicTypes.ToFault(mapping.Toxics[1]));
        Assert.Equal(plan.Faults[4], ToxicTypes.ToFault(mapping.Toxics[4]));
        Assert.Equal(plan.Faults[6], ToxicTypes.ToFault(mapping.Toxics[6]));
    }

    [Fact]
    public void Empty_plan_maps_to_nothing()
    {
        FaultPlanToxics.Mapping mapping = FaultPlanToxics.Map(FaultPlan.Empty);
        Assert.Empty(mapping.Toxics);
        Assert.Empty(mapping.Unmapped);
    }
}
