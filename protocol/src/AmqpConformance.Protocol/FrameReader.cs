using System.Buffers;
using System.Buffers.Binary;

namespace AmqpConformance.Protocol;

/// <summary>
/// Splits a byte stream (typically a <c>PipeReader</c>'s buffer) into frames
/// without copying payloads.
/// </summary>
public static class FrameReader
{
    /// <summary>A hard cap on payload size for connections that negotiated frame_max 0 (unlimited): 128 MiB.</summary>
    public const long DefaultUnlimitedPayloadCap = 128L * 1024 * 1024;

    /// <summary>The largest payload allowed under <paramref name="frameMax"/>: frame_max - 8, or
    /// <paramref name="unlimitedCap"/> when frame_max is 0.</summary>
    public static long MaxPayloadFor(uint frameMax, long unlimitedCap = DefaultUnlimitedPayloadCap) =>
        frameMax == 0 ? unlimitedCap : Math.Max(0, (long)frameMax - AmqpConstants.FrameOverhead);

    /// <summary>
    /// Tries to take one frame from the start of <paramref name="buffer"/>.
    /// </summary>
    /// <param name="buffer">The unread bytes. On <see cref="FrameReadStatus.Frame"/> and
    /// <see cref="FrameReadStatus.BadFrameEnd"/> it is advanced past the frame; otherwise unchanged.</param>
    /// <param name="maxPayload">Largest acceptable payload, e.g. <see cref="MaxPayloadFor"/>(frame_max).
    /// Checked against the header alone, before any payload byte is awaited, so a header claiming 2 GB costs nothing.
    /// Payloads above <see cref="int.MaxValue"/> bytes are always too large, whatever this says.</param>
    /// <param name="frame">The frame (header fields only for <see cref="FrameReadStatus.PayloadTooLarge"/>;
    /// default for <see cref="FrameReadStatus.NeedMoreData"/>). Its payload is a slice of <paramref name="buffer"/>.</param>
    public static FrameReadStatus TryReadFrame(ref ReadOnlySequence<byte> buffer, long maxPayload, out RawFrame frame)
    {
        frame = default;
        if (buffer.Length < AmqpConstants.FrameHeaderSize) return FrameReadStatus.NeedMoreData;

        Span<byte> header = stackalloc byte[AmqpConstants.FrameHeaderSize];
        buffer.Slice(0, AmqpConstants.FrameHeaderSize).CopyTo(header);
        if (IsTooLarge(header, maxPayload, out frame)) return FrameReadStatus.PayloadTooLarge;
        long size = frame.ClaimedSize;
        if (buffer.Length < size + AmqpConstants.FrameOverhead)
        {
            frame = default;
            return FrameReadStatus.NeedMoreData;
        }

        var payload = buffer.Slice(AmqpConstants.FrameHeaderSize, size);
        var endPosition = buffer.GetPosition(AmqpConstants.FrameHeaderSize + size);
        byte end = buffer.Slice(endPosition, 1).FirstSpan[0];
        frame = new RawFrame(frame.TypeOctet, frame.Channel, size, payload, end);
        buffer = buffer.Slice(buffer.GetPosition(1, endPosition));
        return end == AmqpConstants.FrameEnd ? FrameReadStatus.Frame : FrameReadStatus.BadFrameEnd;
    }

    /// <summary>Reads the 7 header bytes at the start of <paramref name="header"/> into <paramref name="frame"/> (no
    /// payload); returns whether the claimed payload is over <paramref name="maxPayload"/> or <see cref="int.MaxValue"/>
    /// (<see cref="FrameReadStatus.PayloadTooLarge"/>, with <paramref name="frame"/> as that status reports it).</summary>
    internal static bool IsTooLarge(ReadOnlySpan<byte> header, long maxPayload, out RawFrame frame)
    {
        byte type = header[0];
        ushort channel = BinaryPrimitives.ReadUInt16BigEndian(header[1..]);
        long size = BinaryPrimitives.ReadUInt32BigEndian(header[3..]);
        frame = new RawFrame(type, channel, size, ReadOnlySequence<byte>.Empty, 0);
        return size > Math.Min(maxPayload, int.MaxValue);
    }
}
