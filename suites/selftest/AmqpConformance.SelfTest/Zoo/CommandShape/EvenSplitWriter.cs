using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.CommandShape;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that spreads a body evenly over the number of frames it needs ("no runt last
/// frame"), so every frame is within frame_max but, for a multi-frame body that is not an exact multiple of frame_max -
/// 8, no frame is full, while AMQP requires every body frame but the last to carry exactly frame_max - 8 bytes.
/// Single-frame bodies and exact multiples are correct.
/// </summary>
public sealed class EvenSplitWriter(WriterContext context) : InlineZooWriter(context, "even-split")
{
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        output.Write(command.Frames.Span);
        int length = command.Body.Length;
        int frames = FrameFormat.BodyFrameCount(length, frameMax);
        // BUG: equal slices (rounded up) instead of full frame_max - 8 slices and a shorter last one.
        int slice = frames == 0 ? 0 : (int)(((long)length + frames - 1) / frames);
        var body = command.Body.Span;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(slice, body.Length)];
            FrameFormat.WriteFrame(output, FrameType.Body, command.Channel, chunk);
            body = body[chunk.Length..];
        }
    }
}
