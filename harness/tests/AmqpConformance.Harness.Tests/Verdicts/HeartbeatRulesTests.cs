using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Verdicts;

/// <summary>The heartbeat rules: heartbeat calls name nothing on the wire, so the order invariant matches them to
/// heartbeat frames by count and order, and no-interleaving keeps them out of other commands.</summary>
public class HeartbeatRulesTests
{
    private readonly OrderChecker _order = new();

    [Fact]
    public void Heartbeats_on_the_wire_in_order_with_the_calls_around_them_hold_and_are_no_lost_publishes()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Heartbeat();
        b.Publish(1, 2, [3]);
        b.Call(0, [1], 0, 1);
        b.HeartbeatCall(1, 2, 3, index: 1);
        b.Call(2, [3], 4, 5, index: 2);
        Assert.True(_order.Run(b.Evidence()).Holds);
        Assert.True(new NoInterleavingChecker().Run(b.Evidence()).Holds);
    }

    [Fact]
    public void A_heartbeat_may_overtake_commands_queued_before_it_and_overlapping_heartbeats_match_in_any_order()
    {
        // A lane of its own for heartbeats: both heartbeats go out ahead of the publish whose call completed first.
        var b = new WireLogBuilder();
        b.Heartbeat();
        b.Heartbeat();
        b.Publish(1, 0, [1]);
        b.Call(0, [1], 0, 1);
        b.HeartbeatCall(1, 2, 6, publisher: 1);
        b.HeartbeatCall(2, 3, 5, publisher: 2);
        // A heartbeat call that failed may have written its frame: not a duplicate.
        b.HeartbeatCall(3, 7, 8, CallOutcome.Failed, publisher: 3);
        b.Heartbeat();
        Assert.True(_order.Run(b.Evidence()).Holds);
    }

    [Fact]
    public void A_successful_heartbeat_call_without_a_frame_is_lost_unless_a_fault_explains_it()
    {
        var b = new WireLogBuilder();
        b.Heartbeat();
        b.HeartbeatCall(0, 0, 1);
        b.HeartbeatCall(1, 2, 3, index: 1);
        Assert.Equal([1], _order.Run(b.Evidence()).Single("lost-heartbeat").Calls);
        var faulted = b.Evidence(e => e with { Fault = new TransportFaultRecord(TimeSpan.Zero, "reset", null, 0) });
        Assert.True(_order.Run(faulted).Holds);
    }

    [Fact]
    public void More_heartbeat_frames_than_heartbeat_calls_is_a_duplicate()
    {
        var b = new WireLogBuilder();
        b.Heartbeat();
        b.Heartbeat();
        b.HeartbeatCall(0, 0, 1);
        Assert.Equal([0], _order.Run(b.Evidence()).Single("duplicate-heartbeat").Calls);
    }

    [Fact]
    public void A_heartbeat_that_completed_before_a_call_started_must_be_on_the_wire_before_it()
    {
        var b = new WireLogBuilder();
        long publish = b.Publish(1, 1, [2])[0];
        long heartbeat = b.Heartbeat();
        b.HeartbeatCall(0, 0, 1);
        b.Call(1, [2], 2, 3, publisher: 1);
        var v = _order.Run(b.Evidence()).Single("heartbeat-order");
        Assert.Equal([0, 1], v.Calls);
        Assert.Equal([publish, heartbeat], v.Frames);
        // Overlapping, the two may go out in either order.
        b.Replace(b.Evidence().Calls[1] with { Started = TimeSpan.FromMilliseconds(0.5) });
        Assert.True(_order.Run(b.Evidence()).Holds);
    }

    [Fact]
    public void A_heartbeat_inside_another_command_is_reported_as_such()
    {
        var b = new WireLogBuilder();
        byte[] body = WireLogBuilder.Bytes(5000);
        long m = b.Method(1, 0);
        long h = b.Header(1, 5000);
        long b1 = b.Body(1, body.AsSpan(0, 4088));
        long heartbeat = b.Heartbeat();
        long b2 = b.Body(1, body.AsSpan(4088));
        b.Call(0, body, 0, 1);
        b.HeartbeatCall(1, 0, 1, publisher: 1);
        var v = Assert.Single(new NoInterleavingChecker().Run(b.Evidence()).Violations);
        Assert.Equal("heartbeat-inside-command", v.Rule);
        Assert.Equal([m, h, b1, b2, heartbeat], v.Frames);
        Assert.Equal([0], v.Calls);
    }
}
