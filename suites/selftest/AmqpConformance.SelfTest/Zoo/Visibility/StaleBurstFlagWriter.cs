using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Visibility;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue) that coalesces flushes: each time its loop
/// wakes up it notes whether more than one command is queued and, if so, writes them all and skips the flush, expecting
/// the next round to flush. When the burst ends in that very round, no next round comes: the commands just written
/// (their calls long completed) stay unflushed in the output until the next publish or disposal. A loop that wakes for
/// one command at a time flushes every time and is correct.
/// </summary>
public sealed class StaleBurstFlagWriter(WriterContext context) : StagedZooWriter(context, "stale-burst-flag")
{
    private protected override async Task WriteLoopAsync(
        ChannelReader<StagedCommand> queue,
        List<StagedCommand> inHand,
        CancellationToken stop
    )
    {
        // inHand: the commands written and not yet flushed.
        while (await queue.WaitToReadAsync(stop).ConfigureAwait(false))
        {
            // BUG: "more than one queued: another round follows and will flush" is decided once per wake-up; when the
            // burst ends this round, nothing follows, and the bytes of the commands just written stay unflushed.
            bool burst = queue.Count > 1;
            while (queue.TryRead(out var staged))
            {
                inHand.Add(staged);
                CommandFraming.Write(Context.Output, staged.Command, staged.Body, Context.FrameMax);
            }
            if (burst)
                continue;
            await FlushInHandAsync(inHand, stop).ConfigureAwait(false);
        }
        if (inHand.Count > 0)
            await FlushInHandAsync(inHand, stop).ConfigureAwait(false);
    }

    private async Task FlushInHandAsync(List<StagedCommand> inHand, CancellationToken stop)
    {
        CommandFraming.ThrowIfNotDelivered(await Context.Output.FlushAsync(stop).ConfigureAwait(false));
        foreach (var w in inHand)
            w.Release(Context.Pool);
        inHand.Clear();
    }
}
