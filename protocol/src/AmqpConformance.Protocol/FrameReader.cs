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
    /// <param name="frame">The frame (header fields only for <see cref="FrameReadStatus.PayloadTooLarge"/>; default for
    /// <see cref="FrameReadStatus.NeedMoreData"/>). Its payload is a slice of <paramref name="buffer"/>.</param>
    public static FrameReadStatus TryReadFrame(ref ReadOnlySequence<byte> buffer, long maxPayload, out RawFrame frame)
    {
        frame = default;
        if (buffer.Length < AmqpConstants.FrameHeaderSize)
            return FrameReadStatus.NeedMoreData;

        Span<byte> header = stackalloc byte[AmqpConstants.FrameHeaderSize];
        buffer.Slice(0, AmqpConstants.FrameHeaderSize).CopyTo(header);
        if (!ReadHeader(header, maxPayload, out byte type, out ushort channel, out long size))
        {
            frame = TooLarge(type, channel, size);
            return FrameReadStatus.PayloadTooLarge;
        }
        if (buffer.Length < size + AmqpConstants.FrameOverhead)
            return FrameReadStatus.NeedMoreData;

        var payload = buffer.Slice(AmqpConstants.FrameHeaderSize, size);
        var endPosition = buffer.GetPosition(AmqpConstants.FrameHeaderSize + size);
        byte end = buffer.Slice(endPosition, 1).FirstSpan[0];
        frame = new RawFrame(type, channel, size, payload, end);
        buffer = buffer.Slice(buffer.GetPosition(1, endPosition));
        return end == AmqpConstants.FrameEnd ? FrameReadStatus.Frame : FrameReadStatus.BadFrameEnd;
    }

    /// <summary>Reads the 7 header bytes at the start of <paramref name="header"/>; returns whether the claimed
    /// payload is acceptable: at most <paramref name="maxPayload"/> and <see cref="int.MaxValue"/> (otherwise the frame
    /// is <see cref="FrameReadStatus.PayloadTooLarge"/>, reported as <see cref="TooLarge"/> makes it).</summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    internal static bool ReadHeader(
        ReadOnlySpan<byte> header,
        long maxPayload,
        out byte type,
        out ushort channel,
        out long size
    )
    {
        type = header[0];
        channel = BinaryPrimitives.ReadUInt16BigEndian(header[1..]);
        size = BinaryPrimitives.ReadUInt32BigEndian(header[3..]);
        return size <= Math.Min(maxPayload, int.MaxValue);
    }

    /// <summary>The frame a <see cref="FrameReadStatus.PayloadTooLarge"/> header reports: its fields, no
    /// payload.</summary>
    internal static RawFrame TooLarge(byte type, ushort channel, long size) =>
        new(type, channel, size, ReadOnlySequence<byte>.Empty, 0);
}
