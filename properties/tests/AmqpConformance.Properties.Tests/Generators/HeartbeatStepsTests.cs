using AmqpConformance.Properties.Generators;
using AmqpConformance.Properties.Scenarios;
using FsCheck;
using FsCheck.Fluent;

namespace AmqpConformance.Properties.Tests.Generators;

public sealed class HeartbeatStepsTests
{
    private static readonly Rnd Seeded = new(20_261_207UL);

    private static readonly Scenario[] Sample = ScenarioGenerators.Scenario.Sample(400, Seeded, 50);

    private static bool HasHeartbeat(Scenario s) => s.Publishers.Any(p => p.Any(x => x.Heartbeat));

    [Fact]
    public void Heartbeats_come_in_a_few_cases_free_and_scripted_and_never_for_a_whole_client()
    {
        int cases = Sample.Count(HasHeartbeat);
        Assert.InRange(cases, Sample.Length / 8, Sample.Length / 2);
        Assert.Contains(Sample, s => s.Script is null && HasHeartbeat(s) && s.Publishers.Count >= 2);
        Assert.Contains(Sample, s => s.Pipelined && s.Publishers[0].Count(x => x.Heartbeat) >= 2);
        var steps = Sample.SelectMany(s => s.Publishers.SelectMany(p => p)).ToList();
        var heartbeats = steps.Where(x => x.Heartbeat).ToList();
        Assert.InRange(heartbeats.Count, steps.Count / 100, steps.Count / 5);
        Assert.All(heartbeats, x =>
            Assert.Equal((true, 0, false, false), (x.MethodOnly, x.BodyLength, x.ConnectionLevel, x.WithBodyOwner))
        );
        Assert.Contains(heartbeats, x => x.Cancel != CancelKind.None);
        Assert.Equal("heartbeat", CallStep.ForHeartbeat().ToString());
        Assert.DoesNotContain(ScenarioGenerators.ClientScenario.Sample(200, Seeded, 30), HasHeartbeat);
    }

    [Fact]
    public void Scripted_heartbeats_come_while_a_flush_is_held_and_after_a_fault()
    {
        var scripted = Sample.Where(s => s.Script is not null && HasHeartbeat(s)).ToList();
        Assert.Contains(scripted, s => HeartbeatCallAfter(s, ScriptActionKind.Hold));
        Assert.Contains(scripted, s =>
            HeartbeatCallAfter(s, ScriptActionKind.Reset) || HeartbeatCallAfter(s, ScriptActionKind.Close)
        );
    }

    [Fact]
    public void Into_keeps_a_large_burst_and_makes_at_least_one_heartbeat()
    {
        IReadOnlyList<IReadOnlyList<CallStep>> publishers =
        [
            [new CallStep(400_000), new CallStep(400_000)],
            [new CallStep(400_000), new CallStep(400_000)],
            [
                new CallStep(400_000),
                new CallStep(400_000),
                new CallStep(1, Cancel: CancelKind.OnFlush, CancelAfterFlushes: 2),
            ],
        ];
        for (int seed = 0; seed < 50; seed++)
        {
            var result = HeartbeatSteps.Into(publishers, new Random(seed), largeBurst: true);
            Assert.All(result.SelectMany(p => p.Take(2)), x => Assert.False(x.Heartbeat));
            var last = result[2][2];
            Assert.True(last.Heartbeat);
            Assert.Equal((CancelKind.OnFlush, 2), (last.Cancel, last.CancelAfterFlushes));
        }
    }

    /// <summary>Whether a call step of a publisher whose next call is a heartbeat comes after an action of
    /// <paramref name="kind"/> in the script.</summary>
    private static bool HeartbeatCallAfter(Scenario s, ScriptActionKind kind)
    {
        var next = new int[s.Publishers.Count];
        bool seen = false;
        foreach (var a in s.Script!)
        {
            if (a.Kind == kind)
                seen = true;
            if (!a.MakesCall || a.Publisher < 0 || a.Publisher >= next.Length)
                continue;
            int i = next[a.Publisher]++;
            if (seen && i < s.Publishers[a.Publisher].Count && s.Publishers[a.Publisher][i].Heartbeat)
                return true;
        }
        return false;
    }
}
