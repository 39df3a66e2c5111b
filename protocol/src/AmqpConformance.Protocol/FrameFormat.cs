using System.Buffers;
using System.Buffers.Binary;

namespace AmqpConformance.Protocol;

/// <summary>
/// Writes raw frames (type | channel | size | payload | 0xCE) into any <see cref="IBufferWriter{T}"/>.
/// These are the building blocks the reference writers share; they never allocate.
/// </summary>
public static class FrameFormat
{
    /// <summary>Writes the 7-byte frame header into <paramref name="destination"/>.</summary>
    public static void WriteHeader(Span<byte> destination, FrameType type, ushort channel, int payloadSize)
    {
        destination[0] = (byte)type;
        BinaryPrimitives.WriteUInt16BigEndian(destination[1..], channel);
        BinaryPrimitives.WriteUInt32BigEndian(destination[3..], (uint)payloadSize);
    }

    /// <summary>Number of body frames a body of <paramref name="bodyLength"/> bytes needs under
    /// <paramref name="frameMax"/> (0 = unlimited). An empty body needs none.</summary>
    public static int BodyFrameCount(long bodyLength, int frameMax)
    {
        if (bodyLength == 0)
            return 0;
        long max = AmqpConstants.MaxBodyFramePayload(frameMax);
        return (int)((bodyLength + max - 1) / max);
    }

    /// <summary>Total wire bytes of the body frames for a body of <paramref name="bodyLength"/> bytes.</summary>
    public static long BodyFramesWireLength(long bodyLength, int frameMax) =>
        bodyLength + (long)BodyFrameCount(bodyLength, frameMax) * AmqpConstants.FrameOverhead;

    /// <summary>
    /// Writes <paramref name="body"/> as body frames on <paramref name="channel"/>, each carrying
    /// frame_max - 8 bytes except the last; writes nothing for an empty body. The body bytes are
    /// copied into <paramref name="output"/>'s memory, so the caller may reuse the body once this returns.
    /// </summary>
    public static void WriteBodyFrames(
        IBufferWriter<byte> output,
        ushort channel,
        ReadOnlySpan<byte> body,
        int frameMax
    )
    {
        int max = AmqpConstants.MaxBodyFramePayload(frameMax);
        while (!body.IsEmpty)
        {
            int chunk = Math.Min(max, body.Length);
            WriteFrame(output, FrameType.Body, channel, body[..chunk]);
            body = body[chunk..];
        }
    }

    /// <summary>Writes one whole frame. Large payloads are copied in pieces, so the output need
    /// not offer one span as large as the frame.</summary>
    public static void WriteFrame(
        IBufferWriter<byte> output,
        FrameType type,
        ushort channel,
        ReadOnlySpan<byte> payload
    )
    {
        Span<byte> header = output.GetSpan(AmqpConstants.FrameHeaderSize);
        WriteHeader(header, type, channel, payload.Length);
        output.Advance(AmqpConstants.FrameHeaderSize);
        while (!payload.IsEmpty)
        {
            Span<byte> span = output.GetSpan(1);
            int n = Math.Min(span.Length, payload.Length);
            payload[..n].CopyTo(span);
            output.Advance(n);
            payload = payload[n..];
        }
        output.GetSpan(1)[0] = AmqpConstants.FrameEnd;
        output.Advance(1);
    }
}
