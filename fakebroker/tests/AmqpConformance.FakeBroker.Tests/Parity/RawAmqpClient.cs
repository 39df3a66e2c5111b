using System.Buffers;
using System.Buffers.Binary;
using System.Net.Sockets;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Parity;

/// <summary>
/// A client that writes exactly the bytes it is given and reads back what the server says, item by item: frames, or
/// an 8-byte protocol header (a server's answer to a header it does not accept). No validation of its own.
/// </summary>
internal sealed class RawAmqpClient : IAsyncDisposable
{
    private readonly Socket _socket;
    private readonly byte[] _readBuffer = new byte[64 * 1024];
    private byte[] _pending = new byte[64 * 1024];
    private int _pendingLength;

    private RawAmqpClient(Socket socket) => _socket = socket;

    public static async Task<RawAmqpClient> ConnectAsync(string host, int port, CancellationToken cancellationToken)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            await socket.ConnectAsync(host, port, cancellationToken);
            return new RawAmqpClient(socket);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    public async Task SendAsync(ReadOnlyMemory<byte> bytes, CancellationToken cancellationToken)
    {
        while (!bytes.IsEmpty)
        {
            int sent = await _socket.SendAsync(bytes, SocketFlags.None, cancellationToken);
            bytes = bytes[sent..];
        }
    }

    public Task SendFrameAsync(FrameType type, ushort channel, ReadOnlySpan<byte> payload, CancellationToken cancellationToken, byte frameEnd = AmqpConstants.FrameEnd) =>
        SendAsync(Frame((byte)type, channel, payload, frameEnd), cancellationToken);

    public Task SendMethodAsync(ushort channel, IAmqpMethod method, CancellationToken cancellationToken) =>
        SendFrameAsync(FrameType.Method, channel, MethodCodec.ToPayload(method), cancellationToken);

    /// <summary>The wire bytes of one frame with any type octet, size and end octet.</summary>
    public static byte[] Frame(byte type, ushort channel, ReadOnlySpan<byte> payload, byte frameEnd = AmqpConstants.FrameEnd)
    {
        var frame = new byte[payload.Length + AmqpConstants.FrameOverhead];
        frame[0] = type;
        BinaryPrimitives.WriteUInt16BigEndian(frame.AsSpan(1), channel);
        BinaryPrimitives.WriteUInt32BigEndian(frame.AsSpan(3), (uint)payload.Length);
        payload.CopyTo(frame.AsSpan(7));
        frame[^1] = frameEnd;
        return frame;
    }

    public static byte[] MethodFrame(ushort channel, IAmqpMethod method) => Frame((byte)FrameType.Method, channel, MethodCodec.ToPayload(method));

    public static byte[] HeaderFrame(ushort channel, ulong bodySize)
    {
        var header = new ContentHeader(bodySize);
        var payload = new byte[header.EncodedLength()];
        header.Encode(payload);
        return Frame((byte)FrameType.Header, channel, payload);
    }

    /// <summary>Reads the next item the server sent; null when the server closed the connection (or reset it).</summary>
    public async Task<ServerItem?> ReadAsync(CancellationToken cancellationToken)
    {
        while (true)
        {
            if (TryTake(out ServerItem? item)) return item;
            int read;
            try
            {
                read = await _socket.ReceiveAsync(_readBuffer, SocketFlags.None, cancellationToken);
            }
            catch (SocketException e) when (e.SocketErrorCode is SocketError.ConnectionReset or SocketError.ConnectionAborted)
            {
                return null;
            }
            if (read == 0) return null;
            if (_pendingLength + read > _pending.Length) Array.Resize(ref _pending, Math.Max(_pending.Length * 2, _pendingLength + read));
            _readBuffer.AsSpan(0, read).CopyTo(_pending.AsSpan(_pendingLength));
            _pendingLength += read;
        }
    }

    /// <summary>Reads until a method frame arrives and decodes it; throws if the server closes or sends a close instead of it.</summary>
    public async Task<T> ExpectMethodAsync<T>(CancellationToken cancellationToken) where T : IAmqpMethod
    {
        while (true)
        {
            ServerItem? item = await ReadAsync(cancellationToken) ?? throw new IOException($"the server closed the connection while {typeof(T).Name} was expected");
            if (item.Type != FrameType.Method) continue; // heartbeats and the like
            IAmqpMethod method = MethodCodec.Decode(item.Payload);
            return method is T expected ? expected : throw new UnexpectedMethodException(method, typeof(T));
        }
    }

    private bool TryTake(out ServerItem? item)
    {
        item = null;
        ReadOnlySpan<byte> pending = _pending.AsSpan(0, _pendingLength);
        if (pending.Length >= 4 && pending[..4].SequenceEqual("AMQP"u8))
        {
            if (pending.Length < 8) return false;
            item = new ServerItem(null, 0, pending[..8].ToArray(), IsProtocolHeader: true);
            Consume(8);
            return true;
        }
        var sequence = new ReadOnlySequence<byte>(_pending, 0, _pendingLength);
        FrameReadStatus status = FrameReader.TryReadFrame(ref sequence, long.MaxValue, out RawFrame frame);
        if (status == FrameReadStatus.NeedMoreData) return false;
        item = new ServerItem(frame.Type, frame.Channel, frame.Payload.ToArray(), IsProtocolHeader: false);
        Consume((int)frame.WireLength);
        return true;
    }

    private void Consume(int count)
    {
        _pending.AsSpan(count, _pendingLength - count).CopyTo(_pending);
        _pendingLength -= count;
    }

    public ValueTask DisposeAsync()
    {
        _socket.Dispose();
        return ValueTask.CompletedTask;
    }

    /// <summary>One thing the server sent: a frame, or (IsProtocolHeader) the 8 bytes of a protocol header.</summary>
    public sealed record ServerItem(FrameType? Type, ushort Channel, byte[] Payload, bool IsProtocolHeader);
}
