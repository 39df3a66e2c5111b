using System.Buffers;
using System.Net.Sockets;
using AmqpConformance.Protocol;

namespace AmqpConformance.Protocol.Tests.Recording;

/// <summary>
/// A small scripted AMQP 0-9-1 client over TCP for recording real sessions: handshake, channels, confirm.select,
/// publishes split at frame_max - 8, and a clean connection.close. Built from the harness's codec only.
/// </summary>
internal sealed class ScriptedAmqpSession : IAsyncDisposable
{
    private readonly Socket _socket;
    private readonly ArrayBufferWriter<byte> _out = new();
    private byte[] _in = new byte[256 * 1024];
    private int _inLength;

    private ScriptedAmqpSession(Socket socket) => _socket = socket;

    public int FrameMax { get; private set; }

    public static async Task<ScriptedAmqpSession> OpenAsync(int port, CancellationToken ct)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync("127.0.0.1", port, ct);
        var session = new ScriptedAmqpSession(socket);
        await session.SendAsync(AmqpConstants.ProtocolHeader.ToArray(), ct);
        await session.ExpectAsync<ConnectionStart>(ct);
        await session.SendMethodAsync(0, new ConnectionStartOk { Response = "\0guest\0guest"u8.ToArray() }, ct);
        ConnectionTune tune = await session.ExpectAsync<ConnectionTune>(ct);
        session.FrameMax = (int)tune.FrameMax;
        await session.SendMethodAsync(0, new ConnectionTuneOk { ChannelMax = tune.ChannelMax, FrameMax = tune.FrameMax, Heartbeat = 0 }, ct);
        await session.SendMethodAsync(0, new ConnectionOpen(), ct);
        await session.ExpectAsync<ConnectionOpenOk>(ct);
        return session;
    }

    public async Task OpenChannelWithConfirmsAsync(ushort channel, CancellationToken ct)
    {
        await SendMethodAsync(channel, new ChannelOpen(), ct);
        await ExpectAsync<ChannelOpenOk>(ct);
        await SendMethodAsync(channel, new ConfirmSelect(), ct);
        await ExpectAsync<ConfirmSelectOk>(ct);
    }

    public async Task DeclareQueueAsync(ushort channel, string queue, CancellationToken ct)
    {
        await SendMethodAsync(channel, new QueueDeclare { Queue = queue }, ct);
        await ExpectAsync<QueueDeclareOk>(ct);
    }

    /// <summary>Publishes to the default exchange and waits for the broker's confirm.</summary>
    public async Task PublishAsync(ushort channel, string routingKey, byte[] body, CancellationToken ct)
    {
        FrameFormat.WriteFrame(_out, FrameType.Method, channel, MethodCodec.ToPayload(new BasicPublish { RoutingKey = routingKey }));
        var header = new ContentHeader((ulong)body.Length);
        var headerPayload = new byte[header.EncodedLength()];
        header.Encode(headerPayload);
        FrameFormat.WriteFrame(_out, FrameType.Header, channel, headerPayload);
        FrameFormat.WriteBodyFrames(_out, channel, body, FrameMax);
        await FlushAsync(ct);
        await ExpectAsync<BasicAck>(ct);
    }

    public async Task SendHeartbeatAsync(CancellationToken ct)
    {
        FrameFormat.WriteFrame(_out, FrameType.Heartbeat, 0, []);
        await FlushAsync(ct);
    }

    public async Task CloseAsync(CancellationToken ct)
    {
        await SendMethodAsync(0, new ConnectionClose { ReplyCode = 200, ReplyText = "bye" }, ct);
        await ExpectAsync<ConnectionCloseOk>(ct);
    }

    private async Task SendMethodAsync(ushort channel, IAmqpMethod method, CancellationToken ct)
    {
        FrameFormat.WriteFrame(_out, FrameType.Method, channel, MethodCodec.ToPayload(method));
        await FlushAsync(ct);
    }

    private async Task FlushAsync(CancellationToken ct)
    {
        await SendAsync(_out.WrittenMemory, ct);
        _out.ResetWrittenCount();
    }

    private async Task SendAsync(ReadOnlyMemory<byte> bytes, CancellationToken ct)
    {
        while (!bytes.IsEmpty) bytes = bytes[await _socket.SendAsync(bytes, SocketFlags.None, ct)..];
    }

    /// <summary>Reads frames until a method arrives; it must be a <typeparamref name="T"/> (heartbeats are skipped).</summary>
    private async Task<T> ExpectAsync<T>(CancellationToken ct) where T : IAmqpMethod
    {
        while (true)
        {
            var buffer = new ReadOnlySequence<byte>(_in, 0, _inLength);
            FrameReadStatus status = FrameReader.TryReadFrame(ref buffer, long.MaxValue, out RawFrame frame);
            if (status == FrameReadStatus.Frame)
            {
                IAmqpMethod? method = frame.Type == FrameType.Method ? MethodCodec.Decode(frame.Payload) : null;
                int consumed = (int)frame.WireLength;
                _in.AsSpan(consumed, _inLength - consumed).CopyTo(_in);
                _inLength -= consumed;
                if (method is null) continue;
                return method is T expected ? expected : throw new InvalidOperationException($"expected {typeof(T).Name}, got {method}");
            }
            if (status != FrameReadStatus.NeedMoreData) throw new InvalidOperationException($"bad frame from the broker: {status}");
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
