using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Cancellation;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue) that bounds its queue with a
/// <see cref="SemaphoreSlim"/> of <see cref="WriterContext.QueueCapacity"/> slots, released by the loop after each
/// write. After getting a slot the caller checks its token once more "in case it fired while we waited" and, if so,
/// releases the command and throws, without giving the slot back. Each such cancellation shrinks the queue for good;
/// after QueueCapacity of them every call waits forever. Tokens that fire before the wait, or never, are handled
/// correctly.
/// </summary>
public sealed class CancelledSlotLeakWriter(WriterContext context)
    : SlottedQueueZooWriter(context, "cancelled-slot-leak")
{
    /// <inheritdoc />
    public override async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(Context.Pool);
            throw early;
        }
        await Slots.EnterOrReleaseAsync(command, Context.Pool, cancellationToken).ConfigureAwait(false);
        if (cancellationToken.IsCancellationRequested)
        {
            // BUG: the slot just taken is not given back.
            command.Release(Context.Pool);
            throw new OperationCanceledException(cancellationToken);
        }
        if (Stopped() is { } stopped)
        {
            Slots.Release();
            command.Release(Context.Pool);
            throw stopped;
        }
        try
        {
            Enqueue(command);
        }
        catch
        {
            Slots.Release();
            throw;
        }
    }
}
