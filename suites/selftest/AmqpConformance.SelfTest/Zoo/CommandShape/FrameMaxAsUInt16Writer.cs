using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.CommandShape;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that keeps the negotiated frame_max in a <see cref="ushort"/> field, as the
/// tune method's channel-max and heartbeat are (frame-max is a long in connection.tune, 32 bits). The cast is
/// unchecked: a frame_max of 65536 or more keeps only its low 16 bits, so RabbitMQ's default 131072 becomes 0, read as
/// "unlimited", and a large body goes out as one body frame far over the limit; 200000 becomes 3392 and bodies go out
/// in frames far shorter than frame_max - 8 (and 131073 to 131080 become 1 to 8, which the codec refuses: the call
/// throws). frame_max values below 65536, and bodies that fit one frame either way, are framed right.
/// </summary>
public sealed class FrameMaxAsUInt16Writer(WriterContext context) : InlineZooWriter(context, "frame-max-as-uint16")
{
    // BUG: frame-max is 32 bits on the wire; the unchecked cast keeps its low 16.
    private readonly ushort _frameMax = unchecked((ushort)context.FrameMax);

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        output.Write(command.Frames.Span);
        Protocol.FrameFormat.WriteBodyFrames(output, command.Channel, command.Body.Span, _frameMax);
    }
}
