using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.QueueFull;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy the body, enqueue, complete on enqueue) whose queue is bounded at a
/// hard-coded 128, RabbitMQ.Client's own constant, instead of <see cref="WriterContext.QueueCapacity"/>. Under the
/// default capacity it is correct; when the connection is configured with a smaller capacity, up to 129 calls complete
/// without their bytes flushed while the transport stalls, and the body copies they hold go past what the configuration
/// allows.
/// </summary>
public sealed class FixedQueueCapacityWriter(WriterContext context)
    : StagedZooWriter(
        context,
        "fixed-queue-capacity",
        // BUG: the capacity is the library's constant, not the configured WriterContext.QueueCapacity.
        Channel.CreateBounded<StagedCommand>(
            new BoundedChannelOptions(WriterContext.DefaultQueueCapacity)
            {
                FullMode = BoundedChannelFullMode.Wait,
                SingleReader = true,
                SingleWriter = false,
                AllowSynchronousContinuations = false,
            }
        )
    );
