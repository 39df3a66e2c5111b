using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.QueueFull;

/// <summary>
/// DELIBERATELY BROKEN: The background writer (body copied, call complete once queued in a channel bounded at
/// QueueCapacity) with one flush per burst: on each wake-up the loop drains everything queued into the pipe (TryRead
/// until empty) and then flushes once. (RabbitMQ.Client's own loop, read at 05f462d, flushes after each command and so
/// keeps its bound.) That is efficient, but the bound no longer bounds anything: the moment the loop has drained the
/// channel, the channel has room for QueueCapacity more, and those callers complete too, while the drained commands sit
/// in the pipe behind a flush the stalled socket does not complete. Up to 2 x QueueCapacity calls are reported accepted
/// with nothing flushed, and the copies of all of them are held.
/// </summary>
public sealed class DrainThenFlushWriter(WriterContext context) : StagedZooWriter(context, "drain-then-flush")
{
    private protected override async Task WriteLoopAsync(
        ChannelReader<StagedCommand> queue,
        List<StagedCommand> inHand,
        CancellationToken stop
    )
    {
        while (await queue.WaitToReadAsync(stop).ConfigureAwait(false))
        {
            while (queue.TryRead(out var current))
            {
                inHand.Add(current);
                CommandFraming.Write(Context.Output, current.Command, current.Body, Context.FrameMax);
            }
            CommandFraming.ThrowIfNotDelivered(await Context.Output.FlushAsync(stop).ConfigureAwait(false));
            foreach (var done in inHand)
                done.Release(Context.Pool);
            inHand.Clear();
        }
    }
}
