using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Ordering;

/// <summary>
/// DELIBERATELY BROKEN: <see cref="ControlLaneOvertakesWriter"/>'s design with the fast lane keyed on the channel
/// instead: the connection's own commands, those on channel 0 (heartbeats, connection.close and close-ok,
/// update-secret), go into the lane the loop empties first, so that a queue full of publishes never starves a
/// heartbeat. While the loop keeps up nothing changes; when publishes are still queued as a channel-0 command arrives,
/// it goes out ahead of them although their calls completed before it started: a connection.close would end the
/// connection before publishes its caller was told were sent. Commands without content on other channels keep their
/// place.
/// </summary>
public sealed class ConnectionLaneOvertakesWriter(WriterContext context)
    : ControlLaneOvertakesWriter(context, "connection-lane-overtakes")
{
    /// <summary>BUG: the connection's commands jump the publishes queued before them.</summary>
    protected override bool TakesFastLane(in OutgoingCommand command) => command.Channel == 0;
}
