using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Ordering;

/// <summary>
/// DELIBERATELY BROKEN: <see cref="ControlLaneOvertakesWriter"/>'s two-lane design turned the other way round, "a
/// heartbeat only matters on a quiet connection": every command but a heartbeat goes into the lane the loop empties
/// first, heartbeats into the other, so each round writes the heartbeats after every other command it took. While the
/// loop keeps up nothing changes; when a heartbeat is still queued as a later call's command arrives, the later command
/// goes out first although the heartbeat's call completed before it started, and a stream of publishes can keep the
/// heartbeats back until the broker gives up on the connection.
/// </summary>
public sealed class HeartbeatHeldBackWriter(WriterContext context)
    : ControlLaneOvertakesWriter(context, "heartbeat-held-back")
{
    /// <summary>BUG: heartbeats wait behind every other command the round takes, queued before or after them.</summary>
    protected override bool TakesFastLane(in OutgoingCommand command) =>
        !HeartbeatDroppedWhenBusyWriter.IsHeartbeat(command);
}
