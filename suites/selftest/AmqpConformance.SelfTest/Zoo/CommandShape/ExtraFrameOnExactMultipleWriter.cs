using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.CommandShape;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that counts body frames as "one per full frame_max - 8, plus one for the
/// remainder" (<c>length / max + 1</c>), so a body that is an exact multiple of frame_max - 8 gets a trailing empty
/// body frame (after the body is complete, so the broker sees an unexpected frame). Any other body length is framed
/// correctly.
/// </summary>
public sealed class ExtraFrameOnExactMultipleWriter(WriterContext context)
    : InlineZooWriter(context, "extra-frame-on-exact-multiple")
{
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        output.Write(command.Frames.Span);
        int length = command.Body.Length;
        if (length == 0)
            return;
        int max = AmqpConstants.MaxBodyFramePayload(frameMax);
        // BUG: "full frames plus one for the rest": for an exact multiple the rest is empty, and still gets a frame.
        int frames = length / max + 1;
        var body = command.Body.Span;
        for (int i = 0; i < frames; i++)
        {
            var chunk = body[..Math.Min(max, body.Length)];
            FrameFormat.WriteFrame(output, FrameType.Body, command.Channel, chunk);
            body = body[chunk.Length..];
        }
    }
}
