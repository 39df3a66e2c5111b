using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.Protocol;
using AmqpConformance.SelfTest.Zoo.Ordering;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>Heartbeat calls go through the writer as one heartbeat frame each, and the reference writers hold with
/// them: free-running among publishes, and scripted while a flush is held.</summary>
public sealed class HeartbeatRunTests
{
    [Fact]
    public void The_heartbeat_command_is_one_empty_heartbeat_frame_on_channel_zero()
    {
        var command = CallCommandBuilder.BuildHeartbeat(System.Buffers.ArrayPool<byte>.Shared);
        Assert.Equal((0, 8, false), (command.Channel, command.FramesLength, command.HasContent));
        Assert.Equal(new byte[] { 8, 0, 0, 0, 0, 0, 0, 0xCE }, command.Frames.ToArray());
        Assert.True(command.Body.IsEmpty);
        command.Release(System.Buffers.ArrayPool<byte>.Shared);
    }

    [Theory]
    [InlineData("Background")]
    [InlineData("Inline")]
    [InlineData("Coalescing")]
    public async Task Heartbeat_calls_reach_the_wire_once_each_among_publishes_and_hold(string mode)
    {
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(5000), CallStep.ForHeartbeat(), new CallStep(10), CallStep.ForHeartbeat()],
                [CallStep.ForHeartbeat(), new CallStep(9000)],
            ],
            FaultPlan.Empty,
            Seed: 5
        );
        var result = await WriterLevelRunner.RunAsync(WriterModes.FromName(mode)!, scenario);
        var e = result.Evidence;
        Assert.Equal(3, result.Events[RunEvent.HeartbeatCall]);
        Assert.Equal(3, e.Calls.Count(c => c.Heartbeat && c.Channel == 0 && !c.HasContent));
        Assert.Equal(3, e.Received.Count(f => f.Type == FrameType.Heartbeat && f.Channel == 0 && f.Size == 0));
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, $"{mode}: {v}"));
    }

    [Theory]
    [InlineData("Background")]
    [InlineData("Inline")]
    [InlineData("Coalescing")]
    public async Task Heartbeats_queued_while_a_flush_is_held_go_out_in_order_and_hold(string mode)
    {
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(5000), CallStep.ForHeartbeat()],
                [CallStep.ForHeartbeat(), new CallStep(20)],
            ],
            FaultPlan.Empty,
            Seed: 7
        )
        {
            Script =
            [
                ScriptAction.Hold,
                ScriptAction.Call(0),
                ScriptAction.Call(1),
                ScriptAction.Call(1),
                ScriptAction.Call(0),
                ScriptAction.Release,
            ],
        };
        var result = await WriterLevelRunner.RunAsync(WriterModes.FromName(mode)!, scenario);
        var e = result.Evidence;
        // An inline writer parks the heartbeat behind the held flush, so its caller's next call waits: as many
        // heartbeat frames as heartbeat calls made, one or two.
        int made = e.Calls.Count(c => c.Heartbeat && c.Outcome == CallOutcome.Succeeded);
        Assert.InRange(made, 1, 2);
        Assert.Equal(made, e.Received.Count(f => f.Type == FrameType.Heartbeat));
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, $"{mode}: {v}"));
    }

    [Fact]
    public async Task A_writer_that_drops_or_holds_back_a_queued_heartbeat_is_caught()
    {
        // p0's publish holds the output; p1's heartbeat completes on enqueue; p1's next publish queues behind it.
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(5000)],
                [CallStep.ForHeartbeat(), new CallStep(20)],
            ],
            FaultPlan.Empty,
            Seed: 9
        )
        {
            Script =
            [
                ScriptAction.Hold,
                ScriptAction.Call(0),
                ScriptAction.Call(1),
                ScriptAction.Call(1),
                ScriptAction.Release,
            ],
        };
        var dropped = await WriterLevelRunner.RunAsync(
            FrameWriterFactory.Create("dropped", c => new HeartbeatDroppedWhenBusyWriter(c), WriterCompletion.OnAccept),
            scenario
        );
        Assert.Contains(dropped.Check(InvariantNames.Order).Violations, v => v.Rule == "lost-heartbeat");
        var heldBack = await WriterLevelRunner.RunAsync(
            FrameWriterFactory.Create("held-back", c => new HeartbeatHeldBackWriter(c), WriterCompletion.OnAccept),
            scenario
        );
        Assert.Contains(heldBack.Check(InvariantNames.Order).Violations, v => v.Rule == "heartbeat-order");
    }
}
