using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.QueueFull;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue) that bounds its queue with a
/// <see cref="SemaphoreSlim"/> of <see cref="WriterContext.QueueCapacity"/> slots, released by the loop after each
/// command's flush. The caller gives its slot back in a <c>finally</c> unless its command was queued, "so that no
/// failure path can leak a slot"; but a wait for a slot that was cancelled never took one, and the <c>finally</c>
/// releases it all the same. The semaphore has no maximum, so each call cancelled while the queue is full adds a slot
/// for good, and afterwards more than QueueCapacity + 1 calls complete unflushed while the output stalls. Calls that
/// are not cancelled, or cancelled before they wait, are handled right.
/// </summary>
public sealed class CancelledWaitReleasesSlotWriter(WriterContext context)
    : SlottedQueueZooWriter(context, "cancelled-wait-releases-slot")
{
    /// <inheritdoc />
    public override async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (ZooHelpers.RefuseOnEntry(Stopped(), command, Context.Pool, cancellationToken) is { } refused)
        {
            await refused.ConfigureAwait(false);
            return;
        }
        bool queued = false;
        try
        {
            await Slots.EnterOrReleaseAsync(command, Context.Pool, cancellationToken).ConfigureAwait(false);
            if (Stopped() is { } stopped)
            {
                command.Release(Context.Pool);
                throw stopped;
            }
            Enqueue(command);
            queued = true;
        }
        finally
        {
            // BUG: also runs when the wait for a slot was cancelled, so a slot that was never taken is given back.
            if (!queued)
                Slots.Release();
        }
    }
}
