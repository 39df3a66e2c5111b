using System.Buffers.Binary;
using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.WireFormat;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer with its own body-frame encoder, which writes the payload size into the low
/// two bytes of the four-byte size field (the high two left zero), as its 16-bit channel field beside it. Every frame
/// up to 65,535 payload bytes is correct; a body frame over 64 KiB, possible only when frame_max is 0 (unlimited) or
/// above 65,543, claims its size modulo 65,536, and the broker reads the rest of the payload as the next frames.
/// </summary>
public sealed class SixteenBitSizeWriter(WriterContext context) : InlineZooWriter(context, "sixteen-bit-size")
{
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        output.Write(command.Frames.Span);
        int max = AmqpConstants.MaxBodyFramePayload(frameMax);
        var body = command.Body.Span;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(max, body.Length)];
            Span<byte> header = output.GetSpan(AmqpConstants.FrameHeaderSize);
            header[0] = (byte)FrameType.Body;
            BinaryPrimitives.WriteUInt16BigEndian(header[1..], command.Channel);
            header[3] = 0;
            header[4] = 0;
            // BUG: the size is written as a 16-bit value into the low half of its 32-bit field.
            BinaryPrimitives.WriteUInt16BigEndian(header[5..], (ushort)chunk.Length);
            output.Advance(AmqpConstants.FrameHeaderSize);
            output.Write(chunk);
            output.GetSpan(1)[0] = AmqpConstants.FrameEnd;
            output.Advance(1);
            body = body[chunk.Length..];
        }
    }
}
