using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.QueueFull;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue) whose bounded queue holds
/// <see cref="WriterContext.QueueCapacity"/> + 1 commands: its author read "at most QueueCapacity + 1 calls complete
/// before their bytes are flushed" as the size of the queue, forgetting the command the loop has taken off the queue
/// and is flushing. While the output stalls, QueueCapacity + 2 calls complete without their bytes having gone out, one
/// more than the contract allows; with the default capacity of 128 the difference is too small to matter, with a small
/// one it is the whole margin.
/// </summary>
public sealed class QueueBoundOffByOneWriter(WriterContext context)
    : StagedZooWriter(
        context,
        "queue-bound-off-by-one",
        // BUG: one more than QueueCapacity; the command in the loop's hand is not counted.
        Channel.CreateBounded<StagedCommand>(
            new BoundedChannelOptions(context.QueueCapacity + 1)
            {
                FullMode = BoundedChannelFullMode.Wait,
                SingleReader = true,
                SingleWriter = false,
                AllowSynchronousContinuations = false,
            }
        )
    );
