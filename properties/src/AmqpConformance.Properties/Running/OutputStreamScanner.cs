using System.Buffers.Binary;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Protocol;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// Follows the bytes a writer commits to its output as they are committed, frame by frame, and remembers where each
/// call's command starts and ends (by the routing key of its basic.publish and the body size its content header
/// declares, or the consumer tag of the basic.cancel that is a call without content). The harness uses it to tell a
/// parked call (none of its bytes committed) from one in flight, and whether a completed call's bytes have been
/// flushed. It judges nothing: a stream it cannot follow (a size field it cannot believe) just stops it
/// (<see cref="Lost"/>).
/// </summary>
/// <remarks>Not thread-safe: the caller serializes <see cref="Feed"/>.</remarks>
internal sealed class OutputStreamScanner
{
    private const int MethodPrefixKept = 600; // enough for class, method, ticket, exchange and routing key shortstrs
    private const int HeaderPrefixKept = 12; // class, weight, body size
    private readonly byte[] _header = new byte[AmqpConstants.FrameHeaderSize];
    private readonly byte[] _payloadPrefix = new byte[MethodPrefixKept];
    private readonly Dictionary<ushort, OpenCommand> _open = [];
    private readonly Dictionary<int, long> _firstByte = [];
    private readonly Dictionary<int, long> _endByte = [];
    private readonly List<(long Start, long End, FrameType Type)> _frames = [];
    private readonly List<long> _heartbeatEnds = [];
    private readonly long _maxPayload;
    private int _headerFill;
    private long _payloadSize;
    private long _payloadSeen;
    private int _prefixFill;
    private long _frameStart;
    private long _offset;

    /// <summary>Creates a scanner for a stream under <paramref name="frameMax"/> (0 = unlimited).</summary>
    public OutputStreamScanner(int frameMax) =>
        _maxPayload = FrameReader.MaxPayloadFor((uint)frameMax) + 16 * 1024 * 1024;

    /// <summary>Bytes fed so far.</summary>
    public long Offset => _offset;

    /// <summary>Whether the scanner gave up following the stream (a frame claimed an unbelievable size).</summary>
    public bool Lost { get; private set; }

    /// <summary>Whether the bytes fed so far end inside a frame.</summary>
    public bool MidFrame => _headerFill > 0 || _payloadSize > 0 || _payloadSeen > 0;

    /// <summary>Whether the bytes fed so far end inside a command the scanner follows (inside a frame, or between the
    /// frames of a call's content): a writer there has more of it to write. False once the scanner is
    /// <see cref="Lost"/>.</summary>
    public bool MidCommand => !Lost && (MidFrame || _open.Count > 0);

    /// <summary>How many bytes of an unfinished frame end the stream (0 when it ends on a frame boundary).</summary>
    public long PartialFrameBytes => MidFrame ? _offset - _frameStart : 0;

    /// <summary>The output offset of call <paramref name="callId"/>'s first byte, or null while none of it was
    /// committed.</summary>
    public long? FirstByteOf(int callId) => _firstByte.TryGetValue(callId, out long at) ? at : null;

    /// <summary>The output offset just after call <paramref name="callId"/>'s last frame, or null while its command is
    /// incomplete.</summary>
    public long? EndOf(int callId) => _endByte.TryGetValue(callId, out long at) ? at : null;

    /// <summary>How many heartbeat frames (type 8) end at or before output offset <paramref name="offset"/>: a heartbeat
    /// names no call, so the harness follows heartbeat calls by count.</summary>
    public int HeartbeatsEndingBy(long offset)
    {
        int lo = 0,
            hi = _heartbeatEnds.Count;
        while (lo < hi)
        {
            int mid = (lo + hi) / 2;
            if (_heartbeatEnds[mid] <= offset)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }

    /// <summary>The type of the frame that contains output byte <paramref name="offset"/>, or null when that byte was
    /// not committed or not followed.</summary>
    public FrameType? FrameTypeAt(long offset)
    {
        foreach (var (start, end, type) in _frames)
            if (offset >= start && offset < end)
                return type;
        return null;
    }

    /// <summary>Follows <paramref name="bytes"/>, the next bytes committed to the output.</summary>
    public void Feed(ReadOnlySpan<byte> bytes)
    {
        while (!bytes.IsEmpty && !Lost)
        {
            if (_headerFill < _header.Length)
            {
                if (_headerFill == 0)
                    _frameStart = _offset;
                int n = Math.Min(_header.Length - _headerFill, bytes.Length);
                bytes[..n].CopyTo(_header.AsSpan(_headerFill));
                _headerFill += n;
                Advance(ref bytes, n);
                if (_headerFill < _header.Length)
                    return;
                _payloadSize = BinaryPrimitives.ReadUInt32BigEndian(_header.AsSpan(3));
                if (_payloadSize > _maxPayload)
                {
                    Lost = true;
                    return;
                }
                _payloadSeen = 0;
                _prefixFill = 0;
                continue;
            }
            if (_payloadSeen < _payloadSize)
            {
                int n = (int)Math.Min(_payloadSize - _payloadSeen, bytes.Length);
                int keep = Math.Min(n, _payloadPrefix.Length - _prefixFill);
                if (keep > 0)
                {
                    bytes[..keep].CopyTo(_payloadPrefix.AsSpan(_prefixFill));
                    _prefixFill += keep;
                }
                _payloadSeen += n;
                Advance(ref bytes, n);
                continue;
            }
            // The frame-end octet: the frame is complete (whatever the octet is: judging it is the checkers' job).
            Advance(ref bytes, 1);
            OnFrame((FrameType)_header[0], BinaryPrimitives.ReadUInt16BigEndian(_header.AsSpan(1)), (int)_payloadSize);
            _headerFill = 0;
            _payloadSize = 0;
            _payloadSeen = 0;
        }
    }

    private void Advance(ref ReadOnlySpan<byte> bytes, int n)
    {
        bytes = bytes[n..];
        _offset += n;
    }

    private void OnFrame(FrameType type, ushort channel, int size)
    {
        long end = _offset;
        _frames.Add((_frameStart, end, type));
        var prefix = _payloadPrefix.AsSpan(0, Math.Min(_prefixFill, size));
        switch (type)
        {
            case FrameType.Heartbeat:
                _heartbeatEnds.Add(end);
                break;
            case FrameType.Method:
                _open.Remove(channel);
                if (CallCorrelation.CallIdOfMethod(prefix, out bool hasContent) is { } id)
                {
                    _firstByte.TryAdd(id, _frameStart);
                    if (hasContent)
                        _open[channel] = new OpenCommand(id);
                    else
                        _endByte.TryAdd(id, end);
                }
                break;
            case FrameType.Header
                when _open.TryGetValue(channel, out var command)
                    && command.Declared is null
                    && prefix.Length >= HeaderPrefixKept:
                command.Declared = (long)BinaryPrimitives.ReadUInt64BigEndian(prefix[4..]);
                if (command.Declared == 0)
                    Close(channel, command, end);
                break;
            case FrameType.Body when _open.TryGetValue(channel, out var command) && command.Declared is { } declared:
                command.BodyBytes += size;
                if (command.BodyBytes >= declared)
                    Close(channel, command, end);
                break;
        }
    }

    private void Close(ushort channel, OpenCommand command, long end)
    {
        _endByte.TryAdd(command.CallId, end);
        _open.Remove(channel);
    }

    private sealed class OpenCommand(int callId)
    {
        public int CallId { get; } = callId;
        public long? Declared { get; set; }
        public long BodyBytes { get; set; }
    }
}
