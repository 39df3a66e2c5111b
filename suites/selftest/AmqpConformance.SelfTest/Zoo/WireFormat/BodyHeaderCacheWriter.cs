using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.WireFormat;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that caches the 7-byte header of a full body frame, the one a large body
/// repeats for every frame but its last, so it encodes it once per channel instead of once per frame. The cache is a
/// small direct-mapped table indexed by the channel number's low byte ("a connection rarely has more than 256
/// channels"), and a slot is tagged with the payload size it was encoded for, not with the channel. Channels whose
/// numbers differ by a multiple of 256 (1 and 257, 2 and 258) share a slot: once channel 1 has sent a full body frame,
/// a full body frame on channel 257 goes out with channel 1's header, so the broker sees a body on another channel
/// (closed, or in the middle of another command). A connection whose channels span fewer than 257 numbers, however many
/// it has, sees nothing wrong.
/// </summary>
public sealed class BodyHeaderCacheWriter(WriterContext context) : InlineZooWriter(context, "body-header-cache")
{
    private readonly byte[][] _headers = new byte[256][];
    private readonly int[] _sizes = new int[256];

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        output.Write(command.Frames.Span);
        int max = AmqpConstants.MaxBodyFramePayload(frameMax);
        var body = command.Body.Span;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(max, body.Length)];
            if (chunk.Length == max)
                output.Write(FullFrameHeader(command.Channel, max));
            else
            {
                Span<byte> header = output.GetSpan(AmqpConstants.FrameHeaderSize);
                FrameFormat.WriteHeader(header, FrameType.Body, command.Channel, chunk.Length);
                output.Advance(AmqpConstants.FrameHeaderSize);
            }
            output.Write(chunk);
            output.GetSpan(1)[0] = AmqpConstants.FrameEnd;
            output.Advance(1);
            body = body[chunk.Length..];
        }
    }

    private byte[] FullFrameHeader(ushort channel, int size)
    {
        int slot = channel & 0xFF;
        // BUG: the slot is checked for the size it was encoded for, not for the channel: channels 256 apart share it.
        if (_headers[slot] is { } cached && _sizes[slot] == size)
            return cached;
        var header = new byte[AmqpConstants.FrameHeaderSize];
        FrameFormat.WriteHeader(header, FrameType.Body, channel, size);
        _headers[slot] = header;
        _sizes[slot] = size;
        return header;
    }
}
