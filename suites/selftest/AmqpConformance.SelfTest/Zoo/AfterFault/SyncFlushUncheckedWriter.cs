using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer with a synchronous fast path for its flush: when <c>FlushAsync</c> completes
/// at once (the socket kept up) it goes straight on, and only a flush that had to be awaited has its
/// <see cref="System.IO.Pipelines.FlushResult"/> checked (<see cref="CommandFraming.ThrowIfNotDelivered"/>): "a flush
/// that completed synchronously succeeded". But a flush on an output whose reader has completed (the peer closed in an
/// orderly way) also completes at once, with <see cref="System.IO.Pipelines.FlushResult.IsCompleted"/> set. That call
/// reports success for a command nobody will read, the writer does not stop, and every later call does the same. A
/// transport that fails with an exception, or closes while a flush is pending, is handled right.
/// </summary>
public sealed class SyncFlushUncheckedWriter(WriterContext context) : InlineZooWriter(context, "sync-flush-unchecked")
{
    /// <inheritdoc />
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        WriteCommand(Context.Output, command, Context.FrameMax);
        var flush = Context.Output.FlushAsync(CancellationToken.None);
        // BUG: a flush that completed synchronously is taken for a delivered one, whatever its result says.
        if (flush.IsCompletedSuccessfully)
        {
            _ = flush.Result;
            return;
        }
        CommandFraming.ThrowIfNotDelivered(await flush.ConfigureAwait(false));
    }
}
