using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.QueueFull;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy the body, enqueue, complete on enqueue) whose queue is unbounded: it
/// ignores <see cref="WriterContext.QueueCapacity"/>. While the output keeps up the queue stays short and nothing is
/// wrong; when the transport stalls, a fast publisher is never made to wait and body copies pile up in the writer
/// without limit.
/// </summary>
public sealed class UnboundedQueueWriter(WriterContext context)
    : StagedZooWriter(
        context,
        "unbounded-queue",
        // BUG: unbounded, "so publishers never block"; WriterContext.QueueCapacity is ignored.
        Channel.CreateUnbounded<StagedCommand>(
            new UnboundedChannelOptions
            {
                SingleReader = true,
                SingleWriter = false,
                AllowSynchronousContinuations = false,
            }
        )
    );
