using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: a background writer whose loop treats a failed flush as that one command's problem: it records
/// the fault (so later calls are refused), releases the command and goes on with the next queued one, writing more
/// bytes into an output that has already reported the failure. With nothing queued behind the failing command it is
/// correct; with a publisher ahead of the output, every command queued at the time of the fault is written after it.
/// </summary>
public sealed class KeepWritingAfterFaultWriter(WriterContext context)
    : StagedZooWriter(context, "keep-writing-after-fault")
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
                try
                {
                    CommandFraming.Write(Context.Output, current.Command, current.Body, Context.FrameMax);
                    CommandFraming.ThrowIfNotDelivered(await Context.Output.FlushAsync(stop).ConfigureAwait(false));
                }
                catch (Exception ex) when (!stop.IsCancellationRequested)
                {
                    // BUG: record the fault and carry on with the next queued command, instead of stopping the loop
                    // and releasing everything queued without writing it.
                    RecordFault(ex);
                }
                finally
                {
                    current.Release(Context.Pool);
                }
            }
        }
    }
}
