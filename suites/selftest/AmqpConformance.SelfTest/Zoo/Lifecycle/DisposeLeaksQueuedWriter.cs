using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Lifecycle;

/// <summary>
/// DELIBERATELY BROKEN: a background writer whose loop treats the cancellation DisposeAsync uses to abort a stalled
/// drain as a normal shutdown and returns without releasing the command in hand or anything still queued: their rented
/// frames and body copies leak and their body owners are never disposed. A drain that finishes within the timeout, and
/// real transport faults, are handled correctly; only disposal with a stalled output and a non-empty queue leaks.
/// </summary>
public sealed class DisposeLeaksQueuedWriter(WriterContext context) : StagedZooWriter(context, "dispose-leaks-queued")
{
    private protected override void LoopStopped(Exception reason, List<StagedCommand> inHand)
    {
        if (reason is OperationCanceledException && StopRequested)
        {
            // BUG: "cancelled by DisposeAsync: a normal shutdown", so nothing to clean up; but the command in hand and
            // everything still queued are neither written nor released.
            RecordFault(new ObjectDisposedException(Name));
            return;
        }
        base.LoopStopped(reason, inHand);
    }
}
