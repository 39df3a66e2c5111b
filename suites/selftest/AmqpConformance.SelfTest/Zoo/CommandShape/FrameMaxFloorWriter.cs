using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.CommandShape;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that guards against a "too small" negotiated frame_max by raising it to a
/// minimum of 8192 bytes (a misremembered protocol minimum; AMQP 0-9-1's frame-min-size is 4096). At a negotiated
/// frame_max from 4096 to 8191 it frames bodies as if frame_max were 8192, so a body of more than frame_max - 8 bytes
/// goes out in body frames larger than the broker accepts. At frame_max 0 or 8192 and above, and for bodies that fit
/// one frame, it is correct.
/// </summary>
public sealed class FrameMaxFloorWriter(WriterContext context) : InlineZooWriter(context, "frame-max-floor")
{
    private const int MinimumFrameMax = 8192;

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax) =>
        // BUG: the floor should be 4096, and a negotiated value is the broker's limit, not a hint to raise.
        CommandFraming.Write(
            output,
            command,
            command.Body.Span,
            frameMax == 0 ? 0 : Math.Max(frameMax, MinimumFrameMax)
        );
}
