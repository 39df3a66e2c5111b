using System.Text.Json.Nodes;
using AmqpConformance.Harness.Faults;

namespace AmqpConformance.Harness.Tests.Faults;

[Trait("Area", "Faults")]
public sealed class FaultPlanTests
{
    internal static FaultPlan EveryKind(int seed = 42) =>
        new(
            seed,
            [
                new LatencyFault(5, 2),
                new SlicerFault(17, 5, 10) { Direction = FaultDirection.Downstream },
                new BandwidthFault(200),
                new StallFault(100, 30),
                new StallFault(200),
                new ResetPeerFault(500, 1),
                new ResetPeerFault(null, 7) { Direction = FaultDirection.Downstream },
                new LimitDataFault(4096),
                new BlackHoleFault(0, 300),
                new SlowCloseFault(25),
            ]
        );

    [Fact]
    public void Json_round_trips_every_fault_kind()
    {
        FaultPlan plan = EveryKind();
        string json = plan.ToJson();
        FaultPlan back = FaultPlan.FromJson(json);
        Assert.Equal(plan, back);
        Assert.Equal(json, back.ToJson());
        Assert.Equal(plan, FaultPlan.FromJson(plan.ToJson(indented: true)));
    }

    [Fact]
    public void Json_uses_the_stable_names()
    {
        var plan = new FaultPlan(
            7,
            [new SlicerFault(10, 3, 50) { Direction = FaultDirection.Downstream }, new StallFault(5)]
        );
        Assert.Equal(
            """{"seed":7,"faults":[{"type":"slicer","direction":"downstream","averageSize":10,"sizeVariation":3,"delayMicroseconds":50},{"type":"stall","direction":"upstream","afterBytes":5,"durationMs":null}]}""",
            plan.ToJson()
        );
        JsonNode node = JsonNode.Parse(EveryKind().ToJson())!;
        string[] types = [.. node["faults"]!.AsArray().Select(f => f!["type"]!.GetValue<string>())];
        Assert.Equal(
            [
                "latency",
                "slicer",
                "bandwidth",
                "stall",
                "stall",
                "reset_peer",
                "reset_peer",
                "limit_data",
                "black_hole",
                "slow_close",
            ],
            types
        );
    }

    [Fact]
    public void Plans_compare_by_value()
    {
        Assert.Equal(EveryKind(1), EveryKind(1));
        Assert.Equal(EveryKind(1).GetHashCode(), EveryKind(1).GetHashCode());
        Assert.NotEqual(EveryKind(1), EveryKind(2));
        Assert.NotEqual(FaultPlan.Empty, FaultPlan.Empty.With(new LatencyFault(1)));
    }

    [Theory]
    [InlineData("""{"seed":1,"faults":[{"type":"gremlin","direction":"upstream"}]}""", "gremlin")]
    [InlineData(
        """{"seed":1,"faults":[{"type":"latency","direction":"upstream","latencyMs":-3,"jitterMs":0}]}""",
        "LatencyMs"
    )]
    [InlineData("""{"seed":1,"faults":[{"type":"slicer","direction":"sideways","averageSize":3}]}""", "direction")]
    [InlineData(
        """{"seed":1,"faults":[{"type":"slicer","direction":"upstream","averageSize":3,"sizeVariation":3}]}""",
        "SizeVariation"
    )]
    [InlineData("not json", "Not a fault plan")]
    public void Bad_json_gets_a_clear_error(string json, string mentioned)
    {
        var e = Assert.Throws<FormatException>(() => FaultPlan.FromJson(json));
        Assert.Contains(mentioned, e.Message, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public void Shrink_candidates_are_valid_and_strictly_simpler()
    {
        FaultPlan plan = EveryKind();
        int count = 0;
        foreach (FaultPlan candidate in plan.ShrinkCandidates())
        {
            candidate.Validate();
            Assert.True(candidate.Complexity < plan.Complexity, $"{candidate} is not simpler than {plan}");
            Assert.Equal(plan.Seed, candidate.Seed);
            count++;
        }
        Assert.True(count > plan.Faults.Count);
        Assert.Equal(FaultPlan.Empty, plan.ShrinkCandidates().First() with { Seed = 0 });
        Assert.Empty(FaultPlan.Empty.ShrinkCandidates());
    }

    [Fact]
    public void Greedy_shrinking_toward_a_property_reaches_a_minimal_plan()
    {
        // "Fails" whenever a reset happens after at least 10 bytes: the minimal plan is one reset at exactly 10.
        static bool Fails(FaultPlan p) => p.Faults.Any(f => f is ResetPeerFault { AfterBytes: >= 10 });
        FaultPlan current = EveryKind();
        Assert.True(Fails(current));
        for (int steps = 0; steps < 10_000; steps++)
        {
            FaultPlan? next = current.ShrinkCandidates().FirstOrDefault(Fails);
            if (next is null)
                break;
            current = next;
        }
        Assert.Equal(new FaultPlan(42, [new ResetPeerFault(10, 0)]), current);
    }
}
