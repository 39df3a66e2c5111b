using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.QueueFull;

/// <summary>
/// DELIBERATELY BROKEN: a background writer whose bounded queue was created with
/// <see cref="BoundedChannelFullMode.DropOldest"/> (options copied from a telemetry channel) and no drop callback.
/// While the queue has room it is the reference writer; once it is full (the transport stalls), every new publish
/// silently evicts the oldest queued one, whose call already reported success: it is never written and its rentals
/// never return.
/// </summary>
public sealed class DropOldestWhenFullWriter(WriterContext context)
    : StagedZooWriter(
        context,
        "drop-oldest-when-full",
        Channel.CreateBounded<StagedCommand>(
            new BoundedChannelOptions(context.QueueCapacity)
            {
                // BUG: DropOldest instead of Wait: a full queue evicts an already-acknowledged command, unwritten and
                // unreleased.
                FullMode = BoundedChannelFullMode.DropOldest,
                SingleReader = true,
                SingleWriter = false,
                AllowSynchronousContinuations = false,
            }
        )
    );
