namespace AmqpConformance.Properties.Generators;

/// <summary>
/// Which features one generated case may use (swarm testing): each case draws its own subset, so combinations that a
/// uniform mix would almost never produce (a cancellation racing a release while disposal waits, on several channels,
/// with multi-frame bodies) get real probability, and cases that leave a feature out exercise the others harder.
/// </summary>
/// <param name="Scripted">Driven step by step by a script (holds, named cancellation points, disposal, resets) instead
/// of free-running.</param>
/// <param name="Cancellation">Publishes may be cancelled (before, on a flush, on a request for memory, racing, or by the
/// script).</param>
/// <param name="Faults">The transport gets a fault plan (resets, closes, slicing, latency, stalls at byte
/// positions).</param>
/// <param name="Owners">Bodies may come with an owner the writer must dispose.</param>
/// <param name="Headers">Content properties may carry a headers table (up to what fits a frame).</param>
/// <param name="LargeBodies">Bodies may exceed a few frames (up to 1 MiB).</param>
/// <param name="ManyPublishers">Five to sixteen publishers instead of one to four.</param>
/// <param name="SmallQueue">The writer gets a queue capacity of 1-4 instead of 128.</param>
/// <param name="SmallThreshold">The transport's pause threshold is small, so flushes wait on it often.</param>
/// <param name="Noise">Seeded timing noise at the output's touch points.</param>
/// <param name="Holds">Scripted: the output holds flushes at times (a stalled socket on demand).</param>
/// <param name="Dispose">Scripted: the writer is disposed part-way, with calls pending and calls after it.</param>
/// <param name="Reset">Scripted: the transport is reset or closed part-way, with calls after it.</param>
/// <param name="TransportStall">Free-running: the transport stalls from the start until the writer is blocked (the
/// memory measurement).</param>
/// <param name="StallThroughDispose">Scripted with disposal: the output stays stalled until disposal returns.</param>
/// <param name="Methods">Some calls are commands without content (a single method frame) among the publishes.</param>
/// <param name="Pipelined">Free-running: publisher 0 makes 33-80 small calls (in one such case in eight 257-320, so the
/// writer lives past 256 commands) without awaiting each, then awaits them in order
/// (<see cref="Scenarios.Scenario.Pipelined"/>).</param>
/// <param name="Heartbeats">Some calls are heartbeat frames (<see cref="Scenarios.CallStep.Heartbeat"/>), as a client's
/// heartbeat timer sends: among queued calls, while a flush is held, after a fault (<see cref="HeartbeatSteps"/>).</param>
public sealed record SwarmFeatures(
    bool Scripted,
    bool Cancellation,
    bool Faults,
    bool Owners,
    bool Headers,
    bool LargeBodies,
    bool ManyPublishers,
    bool SmallQueue,
    bool SmallThreshold,
    bool Noise,
    bool Holds,
    bool Dispose,
    bool Reset,
    bool TransportStall,
    bool StallThroughDispose,
    bool Methods = false,
    bool Pipelined = false,
    bool Heartbeats = false
);
