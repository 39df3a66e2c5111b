using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.CommandShape;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer whose body loop is a do/while, so a content command with an empty body still
/// gets one body frame, of size 0, after its header (whose body size is 0, so the broker sees a body frame nobody asked
/// for). Every non-empty body is framed correctly.
/// </summary>
public sealed class EmptyBodyFrameWriter(WriterContext context) : InlineZooWriter(context, "empty-body-frame")
{
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        output.Write(command.Frames.Span);
        if (!command.HasContent)
            return;
        int max = AmqpConstants.MaxBodyFramePayload(frameMax);
        var body = command.Body.Span;
        // BUG: do/while runs once even for an empty body: one empty body frame.
        do
        {
            var chunk = body[..Math.Min(max, body.Length)];
            FrameFormat.WriteFrame(output, FrameType.Body, command.Channel, chunk);
            body = body[chunk.Length..];
        } while (!body.IsEmpty);
    }
}
