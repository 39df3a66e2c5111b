using AmqpConformance.Harness.Faults;
using AmqpConformance.Properties.Generators;
using AmqpConformance.Properties.Scenarios;
using FsCheck;
using FsCheck.Fluent;

namespace AmqpConformance.Properties.Tests.Generators;

public sealed class ScenarioShrinkerTests
{
    private static Scenario Big() =>
        new(
            8192,
            ChannelLayout.Mixed,
            [
                [new CallStep(100_000, 3, 5, 200, CancelKind.OnFlush, 2, true), new CallStep(7), new CallStep(8185)],
                [new CallStep(1), new CallStep(9000, Cancel: CancelKind.Racing)],
                [new CallStep(0)],
            ],
            new FaultPlan(3, [new ResetPeerFault(5000), new SlicerFault(100, 10)]),
            Seed: 42
        );

    private static long Weight(Scenario s) =>
        s.Faults.Complexity
        + s.Publishers.Count * 1_000_000L
        + s.CallCount * 100_000L
        + (s.Layout == ChannelLayout.OwnChannel ? 0 : 1)
        + s.Publishers.SelectMany(p => p)
            .Sum(x =>
                (long)x.BodyLength
                + x.HeaderBytes
                + x.SliceOffset
                + x.SliceSlack
                + (x.Cancel == CancelKind.None ? 0 : 10)
                + x.CancelAfterFlushes
                + (x.WithBodyOwner ? 1 : 0)
            );

    [Fact]
    public void Every_candidate_is_strictly_simpler_and_keeps_at_least_one_publish()
    {
        var big = Big();
        var candidates = ScenarioShrinker.Shrink(big).ToList();
        Assert.NotEmpty(candidates);
        Assert.All(candidates, c =>
        {
            Assert.True(c.CallCount >= 1);
            Assert.All(c.Publishers, p => Assert.NotEmpty(p));
            Assert.True(Weight(c) < Weight(big) || (c.FrameMax == 4096 && big.FrameMax != 4096), c.ToString());
        });
        Assert.Empty(
            ScenarioShrinker.Shrink(
                new Scenario(
                    4096,
                    ChannelLayout.OwnChannel,
                    [
                        [new CallStep(0)],
                    ],
                    FaultPlan.Empty
                )
            )
        );
    }

    [Fact]
    public void Shrinking_reaches_a_small_readable_counterexample()
    {
        // A made-up bug: "bodies longer than 5000 bytes on a multi-publisher run fail".
        var runner = new Capture();
        Check.One(
            Config.Quick.WithMaxTest(200).WithRunner(runner),
            Prop.ForAll(ScenarioGenerators.Arbitrary, (Scenario s) =>
                s.Publishers.Count < 2 || s.Publishers.SelectMany(p => p).All(x => x.BodyLength <= 5000)
            )
        );
        var failed = Assert.IsType<TestResult.Failed>(runner.Result);
        var shrunk = Assert.IsType<Scenario>(failed.Item3.Head);
        Assert.Equal(2, shrunk.Publishers.Count);
        Assert.Equal(2, shrunk.CallCount);
        Assert.True(shrunk.Faults.IsEmpty);
        Assert.Equal(ChannelLayout.OwnChannel, shrunk.Layout);
        Assert.True(shrunk.ToString().Length < 120, shrunk.ToString());
    }

    [Fact]
    public void A_cancellation_at_a_write_shrinks_to_an_earlier_write_or_to_none_and_to_no_other_kind()
    {
        var step = new CallStep(10, Cancel: CancelKind.OnWrite, CancelAfterFlushes: 3);
        var steps = ScenarioShrinker
            .Shrink(
                new Scenario(
                    4096,
                    ChannelLayout.OwnChannel,
                    [
                        [step],
                    ],
                    FaultPlan.Empty
                )
            )
            .Select(c => c.Publishers[0][0])
            .Where(s => (s.Cancel, s.CancelAfterFlushes) != (step.Cancel, step.CancelAfterFlushes))
            .Select(s => s.ToString())
            .Distinct()
            .ToList();
        Assert.Contains("10 cancel:write2", steps);
        Assert.Contains("10", steps);
        Assert.All(steps, s => Assert.True(s is "10" or "10 cancel:write2", s));
    }

    [Fact]
    public void Scenario_description_is_compact_and_complete()
    {
        string text = Big().ToString();
        Assert.StartsWith(
            "frame_max=8192 mixed seed=42 [p0: 100000@3+5 h200 cancel:flush2 owned, 7, 8185 | p1: 1, 9000 cancel:racing | p2: 0] faults: {",
            text,
            StringComparison.Ordinal
        );
        Assert.Contains("reset_peer", text, StringComparison.Ordinal);
    }

    private sealed class Capture : IRunner
    {
        public TestResult? Result { get; private set; }

        public void OnStartFixture(Type t) { }

        public void OnArguments(
            int ntest,
            Microsoft.FSharp.Collections.FSharpList<object> args,
            Microsoft.FSharp.Core.FSharpFunc<
                int,
                Microsoft.FSharp.Core.FSharpFunc<Microsoft.FSharp.Collections.FSharpList<object>, string>
            > every
        ) { }

        public void OnShrink(
            Microsoft.FSharp.Collections.FSharpList<object> args,
            Microsoft.FSharp.Core.FSharpFunc<Microsoft.FSharp.Collections.FSharpList<object>, string> everyShrink
        ) { }

        public void OnFinished(string name, TestResult testResult) => Result = testResult;
    }
}
