using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Ordering;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue) whose loop takes up to 16 queued commands at a
/// time and, to cut latency for small messages stuck behind large ones, writes them smallest first (one flush per
/// batch). A loop that keeps up sees one command at a time and is correct; when several are queued, a publisher's small
/// publish overtakes its own earlier large one.
/// </summary>
public sealed class SmallFirstWriter(WriterContext context) : StagedZooWriter(context, "small-first")
{
    private protected override async Task WriteLoopAsync(
        ChannelReader<StagedCommand> queue,
        List<StagedCommand> inHand,
        CancellationToken stop
    )
    {
        int frameMax = Context.FrameMax;
        while (await queue.WaitToReadAsync(stop).ConfigureAwait(false))
        {
            while (inHand.Count < 16 && queue.TryRead(out var staged))
                inHand.Add(staged);
            // BUG: smallest first, across publishers and within one publisher's own sequence.
            inHand.Sort((a, b) => a.WireLength(frameMax).CompareTo(b.WireLength(frameMax)));
            foreach (var staged in inHand)
                CommandFraming.Write(Context.Output, staged.Command, staged.Body, frameMax);
            CommandFraming.ThrowIfNotDelivered(await Context.Output.FlushAsync(stop).ConfigureAwait(false));
            foreach (var staged in inHand)
                staged.Release(Context.Pool);
            inHand.Clear();
        }
    }
}
