using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.CommandShape;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that reads a negotiated frame_max of 0 as "not negotiated" rather than
/// "unlimited" and falls back to RabbitMQ's default of 131072 when it frames bodies, as a client that initialises its
/// frame size from the broker's usual offer does. With frame_max 0 every body must go out as one body frame; this
/// writer cuts a body of more than 131064 bytes into frames of 131064 bytes and a shorter last one. At any negotiated
/// frame_max other than 0, and for bodies up to 131064 bytes at 0, it is correct.
/// </summary>
public sealed class FrameMaxZeroAsDefaultWriter(WriterContext context)
    : InlineZooWriter(context, "frame-max-zero-as-default")
{
    private const int DefaultFrameMax = 131072;

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax) =>
        // BUG: 0 means unlimited, not "use the default".
        CommandFraming.Write(output, command, command.Body.Span, frameMax == 0 ? DefaultFrameMax : frameMax);
}
