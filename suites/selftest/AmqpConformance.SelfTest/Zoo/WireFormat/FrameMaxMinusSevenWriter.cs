using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.WireFormat;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that computes the largest body slice per frame as frame_max - 7, counting the
/// 7-byte frame header but forgetting the frame-end octet. Bodies shorter than frame_max - 7 (one frame, under the
/// limit) are correct; a body of frame_max - 7 bytes or more under a finite frame_max produces body frames of frame_max
/// + 1 bytes, which the broker rejects as FRAME_ERROR.
/// </summary>
public sealed class FrameMaxMinusSevenWriter(WriterContext context) : InlineZooWriter(context, "frame-max-minus-seven")
{
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        output.Write(command.Frames.Span);
        // BUG: frame_max - 7: the header is counted, the frame-end octet is not.
        int max = frameMax == 0 ? int.MaxValue : frameMax - AmqpConstants.FrameHeaderSize;
        var body = command.Body.Span;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(max, body.Length)];
            FrameFormat.WriteFrame(output, FrameType.Body, command.Channel, chunk);
            body = body[chunk.Length..];
        }
    }
}
