using System.Buffers;

namespace AmqpConformance.Protocol;

/// <summary>
/// Reads frames one after another from a pipe's buffer. A frame that lies whole in the current segment is read from
/// that segment's bytes directly, its payload a slice of that segment; one that spans segments, or does not end in the
/// buffer, goes through the general <see cref="FrameReader.TryReadFrame(ref ReadOnlySequence{byte}, long, out RawFrame)"/>.
/// Either way a call gives exactly what the general reader gives for the same bytes (status, header fields, payload
/// bytes, end octet); the cursor only saves walking and slicing the sequence for every frame.
/// </summary>
/// <remarks>A mutable struct: keep it in a local and call <see cref="TryRead"/> on that local. Frames' payloads are
/// slices of the buffer it was made from, valid until the pipe is advanced past them.</remarks>
public struct FrameCursor
{
    /// <summary>The unread bytes, except the first <see cref="_taken"/> of them.</summary>
    private ReadOnlySequence<byte> _rest;

    /// <summary>The first segment of <see cref="_rest"/>.</summary>
    private ReadOnlyMemory<byte> _segment;

    /// <summary>What <see cref="_rest"/> starts in: a segment of a pipe's buffer (then payloads are made as slices of
    /// it, as the general reader's are), or another object (an array: then payloads are sliced from <see cref="_rest"/>).</summary>
    private object? _startObject;

    /// <summary>Where <see cref="_rest"/> starts in <see cref="_startObject"/>.</summary>
    private int _startIndex;

    /// <summary>Bytes of <see cref="_segment"/> already read as frames.</summary>
    private int _taken;

    /// <summary>A cursor at the start of <paramref name="buffer"/>.</summary>
    public FrameCursor(ReadOnlySequence<byte> buffer)
    {
        _rest = buffer;
        _taken = 0;
        _segment = default;
        _startObject = null;
        _startIndex = 0;
        StartAtRest();
    }

    /// <summary>The bytes not read yet (starting with an incomplete or refused frame, if any).</summary>
    public readonly ReadOnlySequence<byte> Remaining => _taken == 0 ? _rest : _rest.Slice(_taken);

    /// <summary>Reads the next frame: the same status and frame as
    /// <see cref="FrameReader.TryReadFrame(ref ReadOnlySequence{byte}, long, out RawFrame)"/> on <see cref="Remaining"/>,
    /// and like it, moves past the frame only for <see cref="FrameReadStatus.Frame"/> and
    /// <see cref="FrameReadStatus.BadFrameEnd"/>.</summary>
    public FrameReadStatus TryRead(long maxPayload, out RawFrame frame)
    {
        ReadOnlySpan<byte> bytes = _segment.Span[_taken..];
        if (bytes.Length >= AmqpConstants.FrameHeaderSize)
        {
            if (!FrameReader.ReadHeader(bytes, maxPayload, out byte type, out ushort channel, out long claimed))
            {
                frame = FrameReader.TooLarge(type, channel, claimed);
                return FrameReadStatus.PayloadTooLarge;
            }
            int size = (int)claimed; // at most int.MaxValue: ReadHeader said so
            if ((uint)bytes.Length >= (uint)size + AmqpConstants.FrameOverhead)
            {
                byte end = bytes[AmqpConstants.FrameHeaderSize + size];
                frame = new RawFrame(type, channel, size, Slice(_taken + AmqpConstants.FrameHeaderSize, size), end);
                _taken += size + AmqpConstants.FrameOverhead;
                return end == AmqpConstants.FrameEnd ? FrameReadStatus.Frame : FrameReadStatus.BadFrameEnd;
            }
        }
        // Not whole in this segment: the general reader, over the rest of the buffer.
        _rest = Remaining;
        _taken = 0;
        var status = FrameReader.TryReadFrame(ref _rest, maxPayload, out frame);
        StartAtRest();
        return status;
    }

    /// <summary>Bytes <paramref name="offset"/> to <paramref name="offset"/> + <paramref name="length"/> of the
    /// current segment, which holds them.</summary>
    private readonly ReadOnlySequence<byte> Slice(int offset, int length)
    {
        if (_startObject is ReadOnlySequenceSegment<byte> segment)
            return new ReadOnlySequence<byte>(segment, _startIndex + offset, segment, _startIndex + offset + length);
        return _rest.Slice(offset, length);
    }

    private void StartAtRest()
    {
        _segment = _rest.First;
        _startObject = _rest.Start.GetObject();
        _startIndex = _rest.Start.GetInteger();
    }
}
