using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (unusual): an inline writer that flushes after the method and header frames and after every body frame, all
/// under one lock held for the whole command, so commands stay atomic while the output never buffers more than one
/// frame. Completes after the last flush; cancellation is honoured only while waiting for the lock (once the first
/// frame is out the command is finished whatever the token says); a fault stops the writer for good.
/// </summary>
public sealed class FlushPerFrameWriter(WriterContext context) : InlineZooWriter(context, "flush-per-frame")
{
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        var output = Context.Output;
        output.Write(command.Frames.Span);
        CommandFraming.ThrowIfNotDelivered(await output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
        int max = AmqpConstants.MaxBodyFramePayload(Context.FrameMax);
        var body = command.Body;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(max, body.Length)];
            FrameFormat.WriteFrame(output, FrameType.Body, command.Channel, chunk.Span);
            CommandFraming.ThrowIfNotDelivered(await output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
            body = body[chunk.Length..];
        }
    }
}
