using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.SharedState;

/// <summary>
/// DELIBERATELY BROKEN: (state shared between instances) an inline writer that assembles body frames in a slice of one
/// slab shared by every instance in the process, under a lock of the process, so the slab is never written by two at
/// once: the first writer rents it from its own pool, each writer counts itself in, and the last one disposed returns
/// it, to its own pool. One connection at a time the slab goes back where it came from; with two at once it goes back
/// to whichever pool belongs to the last one disposed, so one pool never sees its rental again and the other gets an
/// array it never lent.
/// </summary>
public sealed class SharedPoolSlabWriter : FrameScratchZooWriter
{
    private const int SlabLength = 300 * 1024;
    private static readonly object s_gate = new();
    private static byte[]? s_slab;
    private static int s_users;
    private int _disposed;

    /// <summary>Counts itself in, renting the slab if it is the first.</summary>
    public SharedPoolSlabWriter(WriterContext context)
        : base(context, "shared-pool-slab")
    {
        lock (s_gate)
        {
            // BUG: the slab comes from whichever writer's pool was first, and goes back to the last one's.
            s_slab ??= context.Pool.Rent(SlabLength);
            s_users++;
        }
    }

    /// <inheritdoc />
    protected override int ScratchLength(int frameMax) => frameMax;

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        if (frameMax == 0)
        {
            base.WriteCommand(output, command, frameMax);
            return;
        }
        lock (s_gate)
            WriteThroughScratch(
                output,
                command,
                s_slab.AsSpan(0, frameMax),
                AmqpConstants.MaxBodyFramePayload(frameMax)
            );
    }

    /// <inheritdoc />
    public override async ValueTask DisposeAsync()
    {
        await base.DisposeAsync().ConfigureAwait(false);
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        lock (s_gate)
        {
            if (--s_users == 0 && s_slab is { } slab)
            {
                Context.Pool.Return(slab);
                s_slab = null;
            }
        }
    }
}
