using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.QueueFull;

/// <summary>
/// DELIBERATELY BROKEN: a background writer that makes the wait for queue space cancellable with
/// <c>WriteAsync(item).AsTask().WaitAsync(token)</c> instead of passing the token to <c>WriteAsync</c>. Cancelling
/// abandons the wait but not the write: the caller gets <see cref="OperationCanceledException"/> and releases the
/// command, then, when space frees up, the abandoned write enqueues it anyway and the loop writes (and releases again)
/// a command whose call was cancelled and whose buffers are back in the pool. Only a call cancelled while the queue is
/// full is affected.
/// </summary>
public sealed class CancelledSpaceWaitEnqueuesWriter(WriterContext context)
    : StagedZooWriter(context, "cancelled-space-wait-enqueues")
{
    private protected override ValueTask EnqueueWhenRoomAsync(
        ChannelWriter<StagedCommand> queue,
        StagedCommand staged,
        CancellationToken cancellationToken
    ) =>
        // BUG: WaitAsync stops waiting, but the WriteAsync it wraps goes on and enqueues the command later.
        new(queue.WriteAsync(staged, CancellationToken.None).AsTask().WaitAsync(cancellationToken));
}
