using System.Buffers;
using System.Net.Sockets;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>A raw TCP client that writes a pre-serialized batch as fast as the socket takes it. Against the broker it
/// first does the AMQP handshake and opens channel 1; <see cref="SyncAsync"/> then proves every byte was ingested.</summary>
internal sealed class BenchPublisher : IAsyncDisposable
{
    private readonly Socket _socket = new(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
    private readonly ArrayBufferWriter<byte> _out = new();
    private byte[] _in = new byte[64 * 1024];
    private int _inLength;

    public static async Task<BenchPublisher> ConnectRawAsync(int port, CancellationToken ct)
    {
        var publisher = new BenchPublisher();
        await publisher._socket.ConnectAsync("127.0.0.1", port, ct);
        return publisher;
    }

    public static async Task<BenchPublisher> ConnectAmqpAsync(int port, CancellationToken ct)
    {
        BenchPublisher p = await ConnectRawAsync(port, ct);
        p._out.Write(AmqpConstants.ProtocolHeader);
        await p.FlushAsync(ct);
        await p.ExpectAsync<ConnectionStart>(ct);
        await p.SendAsync(0, new ConnectionStartOk { Response = "\0guest\0guest"u8.ToArray() }, ct);
        ConnectionTune tune = await p.ExpectAsync<ConnectionTune>(ct);
        await p.SendAsync(0, new ConnectionTuneOk { ChannelMax = tune.ChannelMax, FrameMax = tune.FrameMax, Heartbeat = 0 }, ct);
        await p.SendAsync(0, new ConnectionOpen(), ct);
        await p.ExpectAsync<ConnectionOpenOk>(ct);
        await p.SendAsync(1, new ChannelOpen(), ct);
        await p.ExpectAsync<ChannelOpenOk>(ct);
        return p;
    }

    /// <summary>Sends connection.close 200 and waits for close-ok.</summary>
    public async Task CloseAsync(CancellationToken ct)
    {
        await SendAsync(0, new ConnectionClose { ReplyCode = 200, ReplyText = "bye" }, ct);
        await ExpectAsync<ConnectionCloseOk>(ct);
    }

    /// <summary>Writes <paramref name="batch"/> <paramref name="repeats"/> times.</summary>
    public async Task BlastAsync(byte[] batch, int repeats, CancellationToken ct)
    {
        for (int i = 0; i < repeats; i++)
        {
            ReadOnlyMemory<byte> bytes = batch;
            while (!bytes.IsEmpty) bytes = bytes[await _socket.SendAsync(bytes, SocketFlags.None, ct)..];
        }
    }

    /// <summary>A round trip (basic.qos / qos-ok) behind everything written so far: when it returns, the broker has
    /// handled every earlier frame, because it handles a connection's frames in order.</summary>
    public async Task SyncAsync(CancellationToken ct)
    {
        await SendAsync(1, new BasicQos { PrefetchCount = 1 }, ct);
        await ExpectAsync<BasicQosOk>(ct);
    }

    private async Task SendAsync(ushort channel, IAmqpMethod method, CancellationToken ct)
    {
        FrameFormat.WriteFrame(_out, FrameType.Method, channel, MethodCodec.ToPayload(method));
        await FlushAsync(ct);
    }

    private async Task FlushAsync(CancellationToken ct)
    {
        ReadOnlyMemory<byte> bytes = _out.WrittenMemory;
        while (!bytes.IsEmpty) bytes = bytes[await _socket.SendAsync(bytes, SocketFlags.None, ct)..];
        _out.ResetWrittenCount();
    }

    private async Task<T> ExpectAsync<T>(CancellationToken ct) where T : IAmqpMethod
    {
        while (true)
        {
            var buffer = new ReadOnlySequence<byte>(_in, 0, _inLength);
            if (FrameReader.TryReadFrame(ref buffer, long.MaxValue, out RawFrame frame) == FrameReadStatus.Frame)
            {
                IAmqpMethod? method = frame.Type == FrameType.Method ? MethodCodec.Decode(frame.Payload) : null;
                int consumed = (int)frame.WireLength;
                _in.AsSpan(consumed, _inLength - consumed).CopyTo(_in);
                _inLength -= consumed;
                if (method is null) continue;
                if (method is T expected) return expected;
                throw method is ConnectionClose close ? new BrokerClosedException(close, typeof(T).Name)
                    : new InvalidOperationException($"expected {typeof(T).Name}, got {method}");
            }
            if (_inLength == _in.Length) Array.Resize(ref _in, _in.Length * 2);
            int read = await _socket.ReceiveAsync(_in.AsMemory(_inLength), SocketFlags.None, ct);
            if (read == 0) throw new IOException($"the broker closed the connection while {typeof(T).Name} was expected");
            _inLength += read;
        }
    }

    public ValueTask DisposeAsync()
    {
        _socket.Dispose();
        return ValueTask.CompletedTask;
    }
}
