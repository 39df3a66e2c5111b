using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: An inline writer that does not let one large publish pile up in the pipe: it writes the body in
/// runs of whole body frames of about 64 KiB and flushes after each run, then flushes once more at the end and checks
/// that flush (CommandFraming.ThrowIfNotDelivered). The intermediate flushes were written as "stop early when the peer
/// is gone": a run's flush that reports IsCompleted (the reader finished: an orderly close) returns from the write as
/// if the command were done, so the call reports success although the rest of its body was never written; a run's flush
/// that throws or is cancelled is handled right. Commands under 64 KiB have no intermediate flush and are always right.
/// </summary>
public sealed class ChunkedFlushStopsOnCompletedWriter(WriterContext context)
    : InlineZooWriter(context, "chunked-flush-stops-on-completed")
{
    private const int RunBytes = 64 * 1024;

    /// <inheritdoc />
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        PipeWriter output = Context.Output;
        output.Write(command.Frames.Span);
        int max = AmqpConstants.MaxBodyFramePayload(Context.FrameMax);
        int framesPerRun = max >= RunBytes ? 1 : Math.Max(1, RunBytes / (max + AmqpConstants.FrameOverhead));
        long perRun = (long)framesPerRun * max;
        var body = command.Body;
        while (body.Length > perRun)
        {
            FrameFormat.WriteBodyFrames(output, command.Channel, body.Span[..(int)perRun], Context.FrameMax);
            body = body[(int)perRun..];
            var run = await output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
            if (run.IsCanceled)
                throw new OperationCanceledException("The flush was cancelled (PipeWriter.CancelPendingFlush).");
            if (run.IsCompleted)
                return; // BUG: "the reader is gone, nothing more to write" -- and the call reports success
        }
        FrameFormat.WriteBodyFrames(output, command.Channel, body.Span, Context.FrameMax);
        CommandFraming.ThrowIfNotDelivered(await output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
    }
}
