using System.Buffers.Binary;
using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.WireFormat;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer with its own body-frame encoder, whose channel field was copied from a
/// heartbeat encoder (channel 0, so "the high byte is always zero"): it writes only the low byte of the channel number.
/// Every frame on channels 1 to 255 is correct; a body frame on channel 256 or above goes out on the channel number
/// modulo 256, so the broker sees a body on another channel (closed, or in the middle of another command).
/// </summary>
public sealed class ChannelLowByteBodyWriter(WriterContext context) : InlineZooWriter(context, "channel-low-byte-body")
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
            // BUG: only the channel's low byte; the high byte is left zero.
            header[1] = 0;
            header[2] = (byte)command.Channel;
            BinaryPrimitives.WriteUInt32BigEndian(header[3..], (uint)chunk.Length);
            output.Advance(AmqpConstants.FrameHeaderSize);
            output.Write(chunk);
            output.GetSpan(1)[0] = AmqpConstants.FrameEnd;
            output.Advance(1);
            body = body[chunk.Length..];
        }
    }
}
