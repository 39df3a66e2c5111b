using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (unusual): a background writer (copy, complete on enqueue, bounded at
/// <see cref="WriterContext.QueueCapacity"/>) whose loop runs on a dedicated thread, as RabbitMQ.Client 5.x and 6.x
/// wrote frames, and blocks that thread on the queue and on each flush (<c>.AsTask().GetAwaiter().GetResult()</c>)
/// instead of awaiting. No caller's thread is ever blocked: callers only copy and queue, or await room. Disposal
/// cancels the loop's token and the pending flush when it gives up, which unblocks the thread.
/// </summary>
public sealed class DedicatedThreadWriter(WriterContext context) : StagedZooWriter(context, "dedicated-thread")
{
    /// <inheritdoc />
    private protected override Task WriteLoopAsync(
        ChannelReader<StagedCommand> queue,
        List<StagedCommand> inHand,
        CancellationToken stop
    ) => ZooHelpers.StartThread("amqp-frame-writer", () => Run(queue, inHand, stop)).Ended;

    private void Run(ChannelReader<StagedCommand> queue, List<StagedCommand> inHand, CancellationToken stop)
    {
        while (queue.WaitToReadAsync(stop).AsTask().GetAwaiter().GetResult())
        {
            while (queue.TryRead(out var current))
            {
                inHand.Add(current);
                CommandFraming.Write(Context.Output, current.Command, current.Body, Context.FrameMax);
                CommandFraming.ThrowIfNotDelivered(Context.Output.FlushAsync(stop).AsTask().GetAwaiter().GetResult());
                inHand.Clear();
                current.Release(Context.Pool);
            }
        }
    }
}
