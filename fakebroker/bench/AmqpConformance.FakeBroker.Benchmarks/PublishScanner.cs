using System.Buffers.Binary;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>
/// The least parsing that lets <see cref="ConfirmingSink"/> confirm honestly: it walks a client's byte stream frame by
/// frame (bytes fed in any slices, as they come off the socket), reads each frame's 7-byte header, the class and method
/// ids of a method frame and the body size of a content header, skips every other byte without copying it, and checks
/// each frame's end octet. It counts a basic.publish as <see cref="Completed"/> once its last body frame (or, for an
/// empty body, its header frame) has fully arrived, so a confirm for it is never sent before all its bytes were read,
/// and it notes connection.close. No other validation, no recording, nothing is kept. Not thread-safe: one reader feeds
/// it.
/// </summary>
internal sealed class PublishScanner
{
    private const int FrameHeaderSize = 7;
    private const byte FrameEnd = 0xCE;

    private readonly byte[] _head = new byte[FrameHeaderSize + 12]; // frame header + the payload bytes looked at
    private int _headFilled;
    private int _headNeeded = FrameHeaderSize;
    private long _skip; // payload bytes of the current frame still to skip
    private bool _atEnd; // the next byte is the current frame's end octet
    private byte _type;
    private long _size;
    private uint _classMethod; // class id << 16 | method id of the current method frame
    private ulong _declaredBody; // body size of the current content header
    private bool _inContent; // a basic.publish waits for its header or body frames
    private ulong _bodyLeft; // body bytes the current publish still lacks

    /// <summary>basic.publish commands whose frames have all arrived.</summary>
    public long Completed { get; private set; }

    /// <summary>Whether connection.close arrived (the sink answers close-ok and stops).</summary>
    public bool CloseRequested { get; private set; }

    /// <summary>Bytes walked so far.</summary>
    public long Bytes { get; private set; }

    /// <summary>Walks <paramref name="data"/>, the next bytes of the stream.</summary>
    /// <exception cref="InvalidDataException">A frame does not end with 0xCE: the stream is not what it should
    /// be.</exception>
    public void Scan(ReadOnlySpan<byte> data)
    {
        Bytes += data.Length;
        while (!data.IsEmpty)
        {
            if (_atEnd)
            {
                if (data[0] != FrameEnd)
                    throw new InvalidDataException(
                        $"frame end octet 0x{data[0]:x2} (expected 0xce) at stream byte {Bytes - data.Length}"
                    );
                data = data[1..];
                _atEnd = false;
                EndOfFrame();
                continue;
            }
            if (_skip > 0)
            {
                int n = (int)Math.Min(_skip, data.Length);
                data = data[n..];
                _skip -= n;
                _atEnd = _skip == 0;
                continue;
            }
            int take = Math.Min(_headNeeded - _headFilled, data.Length);
            data[..take].CopyTo(_head.AsSpan(_headFilled));
            data = data[take..];
            _headFilled += take;
            if (_headFilled == _headNeeded)
                HeadComplete();
        }
    }

    /// <summary>The head bytes wanted so far arrived: either the frame header (then decide how much of the payload to
    /// look at) or the payload's start too (then skip the rest).</summary>
    private void HeadComplete()
    {
        if (_headNeeded == FrameHeaderSize)
        {
            _type = _head[0];
            _size = BinaryPrimitives.ReadUInt32BigEndian(_head.AsSpan(3));
            int look = _type switch
            {
                1 when _size >= 4 => 4, // class id, method id
                2 when _size >= 12 => 12, // class id, weight, body size
                _ => 0,
            };
            if (look > 0)
            {
                _headNeeded += look;
                return;
            }
        }
        if (_type == 1 && _headNeeded > FrameHeaderSize)
            _classMethod = BinaryPrimitives.ReadUInt32BigEndian(_head.AsSpan(FrameHeaderSize));
        if (_type == 2 && _headNeeded > FrameHeaderSize)
            _declaredBody = BinaryPrimitives.ReadUInt64BigEndian(_head.AsSpan(FrameHeaderSize + 4));
        _skip = _size - (_headNeeded - FrameHeaderSize);
        _atEnd = _skip == 0;
        _headFilled = 0;
        _headNeeded = FrameHeaderSize;
    }

    /// <summary>A whole frame arrived (end octet checked): what it means for the publish being counted.</summary>
    private void EndOfFrame()
    {
        switch (_type)
        {
            case 1 when _classMethod == (60u << 16 | 40u): // basic.publish
                _inContent = true;
                _bodyLeft = ulong.MaxValue; // until its header says
                break;
            case 1 when _classMethod == (10u << 16 | 50u): // connection.close
                CloseRequested = true;
                break;
            case 2 when _inContent:
                _bodyLeft = _declaredBody;
                if (_bodyLeft == 0)
                    Complete();
                break;
            case 3 when _inContent && _bodyLeft != ulong.MaxValue:
                _bodyLeft -= Math.Min(_bodyLeft, (ulong)_size);
                if (_bodyLeft == 0)
                    Complete();
                break;
        }
    }

    private void Complete()
    {
        _inContent = false;
        Completed++;
    }
}
