using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>A rule on the first disposal's exception, bodies past 1 MiB, and idle connections, each with the zoo writer
/// that only it catches (docs/decisions.md has the fifth red-team round these came from). Alone in the process, and
/// settled unhurriedly: an idle step does nothing while the call before it is still pending, so the settle after that
/// call must meet it completed, which other test classes' load can defeat.</summary>
[Collection(RunsAloneCollection.Name)]
public sealed class RedTeamFiveScenarioTests
{
    [Fact]
    public async Task A_disposal_that_throws_the_fault_which_stopped_the_writer_is_judged_and_reference_writers_do_not_throw()
    {
        var broken = ZooWriters.FromName("Zoo:DisposeRethrowsFault")!.Factory;
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10), new CallStep(20)],
            ],
            FaultPlan.Empty
        )
        {
            Script = [ScriptAction.Call(0), ScriptAction.Reset, ScriptAction.Call(0), ScriptAction.Dispose],
        };
        var lifecycle = (await WriterLevelRunner.RunAsync(broken, scenario)).Check(InvariantNames.Lifecycle);
        Assert.Contains(
            "TransportResetException",
            Assert.Single(lifecycle.Violations, v => v.Rule == "dispose-threw").Message,
            StringComparison.Ordinal
        );
        var healthy = scenario with { Script = [ScriptAction.Call(0), ScriptAction.Call(0), ScriptAction.Dispose] };
        Assert.True((await WriterLevelRunner.RunAsync(broken, healthy)).Check(InvariantNames.Lifecycle).Holds);
        foreach (var mode in new[] { WriterModes.Background, WriterModes.Inline, WriterModes.Coalescing })
            Assert.DoesNotContain(
                (await WriterLevelRunner.RunAsync(mode, scenario)).Check(InvariantNames.Lifecycle).Violations,
                v => v.Rule == "dispose-threw"
            );
    }

    [Theory]
    [InlineData((1 << 20) + 1000, false)]
    [InlineData(1 << 20, true)]
    public async Task A_writer_that_frames_each_mebibyte_slice_on_its_own_is_caught_only_past_one_mebibyte(
        int bodyLength,
        bool holds
    )
    {
        var broken = ZooWriters.FromName("Zoo:SlicedBodyReframe")!.Factory;
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(bodyLength)],
            ],
            FaultPlan.Empty
        );
        var shape = (await WriterLevelRunner.RunAsync(broken, scenario)).Check(InvariantNames.CommandShape);
        Assert.Equal(holds, shape.Holds);
        if (!holds)
            Assert.Contains(shape.Violations, v => v.Rule == "body-frame-not-full");
    }

    [Fact]
    public async Task An_idle_connection_fires_the_writers_timers_and_a_watchdog_that_kept_a_stale_stamp_is_caught()
    {
        var broken = ZooWriters.FromName("Zoo:StaleWriteWatchdog")!.Factory;
        var idle = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10), new CallStep(20)],
            ],
            FaultPlan.Empty
        )
        {
            Script = [ScriptAction.Call(0), ScriptAction.Idle, ScriptAction.Call(0)],
        };
        var result = await WriterLevelRunner.RunAsync(broken, idle, UnhurriedSettle.Options);
        Assert.Equal(1, result.Events[RunEvent.IdleConnection]);
        Assert.Contains(result.CheckAll(), v => !v.Holds);
        var second = result.Evidence.Calls.Single(c => c.IndexInPublisher == 1);
        Assert.True(
            second.Started - result.Evidence.Calls.Single(c => c.IndexInPublisher == 0).Started
                >= ScriptAction.IdleSpan,
            "the case's clock moved on by the idle span between the two calls"
        );

        var busy = idle with { Script = [ScriptAction.Call(0), ScriptAction.Call(0)] };
        Assert.All((await WriterLevelRunner.RunAsync(broken, busy)).CheckAll(), v =>
            Assert.True(v.Holds, v.ToString())
        );
        foreach (var mode in new[] { WriterModes.Background, WriterModes.Inline, WriterModes.Coalescing })
            Assert.All((await WriterLevelRunner.RunAsync(mode, idle, UnhurriedSettle.Options)).CheckAll(), v =>
                Assert.True(v.Holds, $"{mode.Name}: {v}")
            );
    }

    [Fact]
    public async Task An_idle_step_while_a_flush_is_held_does_nothing()
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
            Script = [ScriptAction.Hold, ScriptAction.Call(0), ScriptAction.Idle, ScriptAction.Release],
        };
        var result = await WriterLevelRunner.RunAsync(WriterModes.Inline, scenario);
        Assert.Equal(0, result.Events[RunEvent.IdleConnection]);
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, v.ToString()));
    }

    [Theory]
    [InlineData(3, false)]
    [InlineData(20, true)]
    public async Task A_one_frame_fast_path_that_forgets_the_body_frames_overhead_is_caught_at_the_command_size_edge(
        int shortOfFrameMax,
        bool holds
    )
    {
        var broken = ZooWriters.FromName("Zoo:SingleFrameFastPathOffBy8")!.Factory;
        int body = 4096 - CallCommandBuilder.FramesLengthWithoutHeaders - shortOfFrameMax;
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(body)],
            ],
            FaultPlan.Empty
        );
        var verdicts = (await WriterLevelRunner.RunAsync(broken, scenario)).CheckAll();
        Assert.Equal(holds, verdicts.All(v => v.Holds));
    }
}
