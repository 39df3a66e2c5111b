using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>Channels spread 256 apart, bodies in memory that is not an array, and a held flush that stays stalled
/// while the writer's timers fire, each with the zoo writer that only it catches, and the reference writers holding
/// (docs/decisions.md has the sixth red-team round these came from). Alone in the process, and settled unhurriedly, as
/// the idle-step tests are.</summary>
[Collection(RunsAloneCollection.Name)]
public sealed class RedTeamSixScenarioTests
{
    private static readonly FrameWriterFactory[] References =
    [
        WriterModes.Background,
        WriterModes.Inline,
        WriterModes.Coalescing,
    ];

    [Fact]
    public void Spread_channels_are_distinct_share_low_bytes_and_stay_within_channel_max()
    {
        var steps = Enumerable.Range(0, 16).Select(_ => (IReadOnlyList<CallStep>)[new CallStep(1)]).ToList();
        foreach (var layout in Enum.GetValues<ChannelLayout>())
        {
            var scenario = new Scenario(4096, layout, steps, FaultPlan.Empty) { ChannelsSpread = true };
            var own = Enumerable
                .Range(0, 16)
                .Where(p => !scenario.IsSharedChannel(p))
                .Select(scenario.ChannelOf)
                .ToList();
            Assert.Equal(own.Count, own.Distinct().Count());
            Assert.All(Enumerable.Range(0, 16), p => Assert.InRange(scenario.ChannelOf(p), 1, 2047));
        }
        var spread = new Scenario(4096, ChannelLayout.OwnChannel, steps, FaultPlan.Empty) { ChannelsSpread = true };
        Assert.Equal([1, 257, 513], [spread.ChannelOf(0), spread.ChannelOf(1), spread.ChannelOf(2)]);
        Assert.Contains("channels-spread", spread.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(true, false)]
    [InlineData(false, true)]
    public async Task A_header_cache_indexed_by_the_channels_low_byte_is_caught_only_with_channels_256_apart(
        bool spread,
        bool holds
    )
    {
        var broken = ZooWriters.FromName("Zoo:BodyHeaderCache")!.Factory;
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10_000)],
                [new CallStep(10_000)],
            ],
            FaultPlan.Empty
        )
        {
            ChannelsSpread = spread,
            Script = [ScriptAction.Call(0), ScriptAction.Call(1)],
        };
        Assert.Equal(holds, (await WriterLevelRunner.RunAsync(broken, scenario)).CheckAll().All(v => v.Holds));
        if (!spread)
            return;
        foreach (var mode in References)
            Assert.All((await WriterLevelRunner.RunAsync(mode, scenario)).CheckAll(), v =>
                Assert.True(v.Holds, $"{mode.Name}: {v}")
            );
    }

    [Theory]
    [InlineData(true, false)]
    [InlineData(false, true)]
    public async Task A_copy_that_is_wrong_only_for_memory_that_is_not_an_array_is_caught_with_opaque_bodies(
        bool opaque,
        bool holds
    )
    {
        var broken = ZooWriters.FromName("Zoo:NonArrayBodyCopy")!.Factory;
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [
                    new CallStep(300, SliceOffset: 5, SliceSlack: 7, OpaqueBody: opaque),
                    new CallStep(5000, OpaqueBody: opaque),
                ],
            ],
            FaultPlan.Empty
        );
        Assert.Equal(holds, (await WriterLevelRunner.RunAsync(broken, scenario)).CheckAll().All(v => v.Holds));
        if (!opaque)
            return;
        foreach (var mode in References)
            Assert.All((await WriterLevelRunner.RunAsync(mode, scenario)).CheckAll(), v =>
                Assert.True(v.Holds, $"{mode.Name}: {v}")
            );
    }

    [Fact]
    public async Task A_long_stall_fires_the_writers_timers_with_the_call_in_flight_and_an_idle_trim_that_ignores_it_is_caught()
    {
        var broken = ZooWriters.FromName("Zoo:IdleTrimDuringStall")!.Factory;
        var stalled = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(40_000), new CallStep(10)],
            ],
            FaultPlan.Empty
        )
        {
            Script =
            [
                ScriptAction.Hold,
                ScriptAction.Call(0),
                ScriptAction.Stall,
                ScriptAction.Release,
                ScriptAction.Call(0),
            ],
        };
        var result = await WriterLevelRunner.RunAsync(broken, stalled, UnhurriedSettle.Options);
        Assert.Equal(1, result.Events[RunEvent.LongStall]);
        Assert.Contains(result.CheckAll(), v => !v.Holds);

        var brief = stalled with
        {
            Script = [ScriptAction.Hold, ScriptAction.Call(0), ScriptAction.Release, ScriptAction.Call(0)],
        };
        Assert.All((await WriterLevelRunner.RunAsync(broken, brief, UnhurriedSettle.Options)).CheckAll(), v =>
            Assert.True(v.Holds, v.ToString())
        );
        foreach (var mode in References)
            Assert.All((await WriterLevelRunner.RunAsync(mode, stalled, UnhurriedSettle.Options)).CheckAll(), v =>
                Assert.True(v.Holds, $"{mode.Name}: {v}")
            );
    }

    [Fact]
    public async Task Two_stall_steps_on_one_held_flush_stall_it_once_so_a_30_s_write_timeout_never_fires()
    {
        // docs/writers.md: the harness never keeps one flush stalled for 20 s or more. Two stall steps in a row must
        // not hold it for 40 s, or a writer with RabbitMQ.Client's 30 s write timeout is blamed.
        var timeout = ZooWriters.FromName("Zoo:WriteTimeout")!.Factory;
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10), new CallStep(10)],
            ],
            FaultPlan.Empty
        )
        {
            Script =
            [
                ScriptAction.Hold,
                ScriptAction.Call(0),
                ScriptAction.Stall,
                ScriptAction.Stall,
                ScriptAction.Release,
                ScriptAction.Call(0),
            ],
        };
        var result = await WriterLevelRunner.RunAsync(timeout, scenario, UnhurriedSettle.Options);
        Assert.Equal(1, result.Events[RunEvent.LongStall]);
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, v.ToString()));

        // A flush started after the first stall is stalled again.
        var twoFlushes = scenario with
        {
            Script =
            [
                ScriptAction.Hold,
                ScriptAction.Call(0),
                ScriptAction.Stall,
                ScriptAction.Pulse,
                ScriptAction.Call(0),
                ScriptAction.Stall,
                ScriptAction.Release,
            ],
        };
        result = await WriterLevelRunner.RunAsync(timeout, twoFlushes, UnhurriedSettle.Options);
        Assert.Equal(2, result.Events[RunEvent.LongStall]);
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, v.ToString()));
    }

    [Fact]
    public async Task A_stall_step_without_a_held_flush_does_nothing()
    {
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10)],
            ],
            FaultPlan.Empty
        )
        {
            Script = [ScriptAction.Call(0), ScriptAction.Stall],
        };
        var result = await WriterLevelRunner.RunAsync(WriterModes.Inline, scenario);
        Assert.Equal(0, result.Events[RunEvent.LongStall]);
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, v.ToString()));
    }
}
