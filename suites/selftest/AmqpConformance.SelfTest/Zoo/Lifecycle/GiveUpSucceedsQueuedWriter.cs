using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Lifecycle;

/// <summary>
/// DELIBERATELY BROKEN: a batching writer (complete after the flush that carried the command) whose disposal, once it
/// gives up draining a stalled output, ends the calls still queued with <c>TrySetResult</c> after releasing their
/// commands, "so that closing the connection does not throw at every publisher". Those calls report success though
/// their commands were never written, breaking the writer's own promise that a call succeeds only after its flush.
/// Disposals that drain in time, and the calls the loop held when it gave up (failed through its fault path), are
/// right.
/// </summary>
public sealed class GiveUpSucceedsQueuedWriter(WriterContext context)
    : TombstoneQueueZooWriter(context, "give-up-succeeds-queued")
{
    /// <inheritdoc />
    protected override void Abandon(Entry entry, Exception reason)
    {
        ArgumentNullException.ThrowIfNull(entry);
        entry.Command.Release(Context.Pool);
        // BUG: a command that was never written is reported as delivered.
        entry.Done.TrySetResult();
    }
}
