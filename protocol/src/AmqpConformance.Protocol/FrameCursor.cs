using System.Buffers;
using System.Runtime.InteropServices;

namespace AmqpConformance.Protocol;

/// <summary>
/// Reads frames one after another from a pipe's buffer. A frame that lies whole in the current segment is read from
/// that segment's bytes directly, its payload a slice of that segment; one that spans segments, or does not end in the
/// buffer, goes through the general
/// <see cref="FrameReader.TryReadFrame(ref ReadOnlySequence{byte}, long, out RawFrame)"/>. Either way a call gives
/// exactly what the general reader gives for the same bytes (status, header fields, payload bytes, end octet); the
/// cursor only saves walking and slicing the sequence for every frame.
/// </summary>
/// <remarks>A mutable struct: keep it in a local and call <see cref="TryRead"/> on that local. Frames' payloads are
/// slices of the buffer it was made from, valid until the pipe is advanced past them.</remarks>
public struct FrameCursor
{
    /// <summary>The unread bytes, except the first <see cref="_taken"/> of them.</summary>
    private ReadOnlySequence<byte> _rest;

    /// <summary>The first segment of <see cref="_rest"/>.</summary>
    private ReadOnlyMemory<byte> _segment;

    /// <summary>The segment of a pipe's buffer <see cref="_rest"/> starts in (payloads are then made as slices of it,
    /// as the general reader's are), or null when it starts in another object (an array: then payloads are sliced from
    /// <see cref="_rest"/>).</summary>
    private ReadOnlySequenceSegment<byte>? _startSegment;

    /// <summary>The array under <see cref="_segment"/>, when it is one (a pipe's memory always is): its bytes are then
    /// read from the array directly. <see cref="_segment"/> starts at <see cref="_arrayOffset"/> in it.</summary>
    private byte[]? _array;

    private int _arrayOffset;

    /// <summary>Where <see cref="_rest"/> starts in <see cref="_startSegment"/> (or the array).</summary>
    private int _startIndex;

    /// <summary>Bytes of <see cref="_segment"/> already read as frames.</summary>
    private int _taken;

    /// <summary>A cursor at the start of <paramref name="buffer"/>.</summary>
    public FrameCursor(ReadOnlySequence<byte> buffer)
    {
        _rest = buffer;
        _taken = 0;
        _segment = default;
        _startSegment = null;
        _array = null;
        _arrayOffset = 0;
        _startIndex = 0;
        StartAtRest();
    }

    /// <summary>The bytes not read yet (starting with an incomplete or refused frame, if any).</summary>
    public readonly ReadOnlySequence<byte> Remaining => _taken == 0 ? _rest : _rest.Slice(_taken);

    /// <summary>Reads the next frame: the same status and frame as
    /// <see cref="FrameReader.TryReadFrame(ref ReadOnlySequence{byte}, long, out RawFrame)"/> on
    /// <see cref="Remaining"/>, and like it, moves past the frame only for <see cref="FrameReadStatus.Frame"/> and
    /// <see cref="FrameReadStatus.BadFrameEnd"/>.</summary>
    public FrameReadStatus TryRead(long maxPayload, out RawFrame frame)
    {
        int available = _segment.Length - _taken;
        if (available >= AmqpConstants.FrameHeaderSize)
        {
            ReadOnlySpan<byte> bytes = _array is not null
                ? new ReadOnlySpan<byte>(_array, _arrayOffset + _taken, available)
                : _segment.Span[_taken..];
            if (!FrameReader.ReadHeader(bytes, maxPayload, out byte type, out ushort channel, out long claimed))
            {
                frame = FrameReader.TooLarge(type, channel, claimed);
                return FrameReadStatus.PayloadTooLarge;
            }
            int size = (int)claimed; // at most int.MaxValue: ReadHeader said so
            if ((uint)available >= (uint)size + AmqpConstants.FrameOverhead)
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
    private readonly ReadOnlySequence<byte> Slice(int offset, int length) =>
        _startSegment is { } segment
            ? new ReadOnlySequence<byte>(segment, _startIndex + offset, segment, _startIndex + offset + length)
            : _rest.Slice(offset, length);

    private void StartAtRest()
    {
        _segment = _rest.First;
        _startSegment = _rest.Start.GetObject() as ReadOnlySequenceSegment<byte>;
        _startIndex = _rest.Start.GetInteger();
        if (MemoryMarshal.TryGetArray(_segment, out ArraySegment<byte> array))
        {
            _array = array.Array;
            _arrayOffset = array.Offset;
        }
        else
        {
            _array = null;
            _arrayOffset = 0;
        }
    }
}
