using System.Buffers;
using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Support;

/// <summary>
/// A bare AMQP client for tests: writes exactly the frames (or bytes) it is told to, including broken ones, and reads
/// the broker's frames back. Works over TCP or over any pair of pipes (the in-memory transport of
/// <see cref="FakeBroker.Serve"/>). Every read takes a token; callers pass one with a timeout.
/// </summary>
internal sealed class RawTestClient : IAsyncDisposable
{
    private readonly PipeReader _input;
    private readonly PipeWriter _output;
    private readonly IDisposable? _owned;

    private RawTestClient(PipeReader input, PipeWriter output, IDisposable? owned)
    {
        _input = input;
        _output = output;
        _owned = owned;
    }

    /// <summary>The tune the broker offered in the last handshake.</summary>
    public ConnectionTune? Tune { get; private set; }

    public static async Task<RawTestClient> ConnectAsync(IPEndPoint endpoint, CancellationToken cancellationToken)
    {
        var socket = new Socket(endpoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(endpoint, cancellationToken);
        var stream = new NetworkStream(socket, ownsSocket: true);
        return new RawTestClient(PipeReader.Create(stream), PipeWriter.Create(stream), stream);
    }

    /// <summary>Connects over TCP, completes the handshake (the broker's tune accepted) and opens channel 1.</summary>
    public static async Task<RawTestClient> ConnectWithChannelAsync(IPEndPoint endpoint, CancellationToken cancellationToken)
    {
        var client = await ConnectAsync(endpoint, cancellationToken);
        try
        {
            await client.HandshakeAsync(cancellationToken);
            await client.OpenChannelAsync(1, cancellationToken);
            return client;
        }
        catch
        {
            await client.DisposeAsync();
            throw;
        }
    }

    /// <summary>A client over pipes: <paramref name="fromBroker"/> carries the broker's output, <paramref name="toBroker"/> its input.</summary>
    public static RawTestClient Over(PipeReader fromBroker, PipeWriter toBroker) => new(fromBroker, toBroker, null);

    // ------------------------------------------------------------------ writing

    public async Task SendBytesAsync(ReadOnlyMemory<byte> bytes, CancellationToken cancellationToken = default)
    {
        await _output.WriteAsync(bytes, cancellationToken);
    }

    public Task SendProtocolHeaderAsync(CancellationToken cancellationToken = default) =>
        SendBytesAsync(AmqpConstants.ProtocolHeader.ToArray(), cancellationToken);

    /// <summary>Sends one frame with the given parts; <paramref name="claimedSize"/> overrides the size field and
    /// <paramref name="endOctet"/> the frame-end octet, to build malformed frames.</summary>
    public Task SendFrameAsync(byte type, ushort channel, ReadOnlySpan<byte> payload, uint? claimedSize = null, byte endOctet = AmqpConstants.FrameEnd,
        CancellationToken cancellationToken = default) =>
        SendBytesAsync(BuildFrame(type, channel, payload, claimedSize, endOctet), cancellationToken);

    public static byte[] BuildFrame(byte type, ushort channel, ReadOnlySpan<byte> payload, uint? claimedSize = null, byte endOctet = AmqpConstants.FrameEnd)
    {
        var frame = new byte[payload.Length + AmqpConstants.FrameOverhead];
        frame[0] = type;
        System.Buffers.Binary.BinaryPrimitives.WriteUInt16BigEndian(frame.AsSpan(1), channel);
        System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(frame.AsSpan(3), claimedSize ?? (uint)payload.Length);
        payload.CopyTo(frame.AsSpan(7));
        frame[^1] = endOctet;
        return frame;
    }

    public static byte[] MethodFrame(ushort channel, IAmqpMethod method) =>
        BuildFrame((byte)FrameType.Method, channel, MethodCodec.ToPayload(method));

    public static byte[] HeaderFrame(ushort channel, ulong bodySize, BasicProperties? properties = null)
    {
        var header = new ContentHeader(bodySize, properties);
        var payload = new byte[header.EncodedLength()];
        header.Encode(payload);
        return BuildFrame((byte)FrameType.Header, channel, payload);
    }

    public static byte[] BodyFrame(ushort channel, ReadOnlySpan<byte> body) => BuildFrame((byte)FrameType.Body, channel, body);

    public Task SendMethodAsync(ushort channel, IAmqpMethod method, CancellationToken cancellationToken = default) =>
        SendBytesAsync(MethodFrame(channel, method), cancellationToken);

    /// <summary>Sends basic.publish + header + body frames of at most <paramref name="maxBodyFrame"/> bytes, in one write.</summary>
    public Task PublishAsync(ushort channel, string exchange, string routingKey, ReadOnlySpan<byte> body, int maxBodyFrame,
        bool mandatory = false, BasicProperties? properties = null, CancellationToken cancellationToken = default) =>
        SendBytesAsync(PublishBytes(channel, exchange, routingKey, body, maxBodyFrame, mandatory, properties), cancellationToken);

    public static byte[] PublishBytes(ushort channel, string exchange, string routingKey, ReadOnlySpan<byte> body, int maxBodyFrame,
        bool mandatory = false, BasicProperties? properties = null)
    {
        var bytes = new ArrayBufferWriter<byte>();
        bytes.Write(MethodFrame(channel, new BasicPublish { Exchange = exchange, RoutingKey = routingKey, Mandatory = mandatory }));
        bytes.Write(HeaderFrame(channel, (ulong)body.Length, properties));
        while (!body.IsEmpty)
        {
            int n = Math.Min(maxBodyFrame, body.Length);
            bytes.Write(BodyFrame(channel, body[..n]));
            body = body[n..];
        }
        return bytes.WrittenSpan.ToArray();
    }

    // ------------------------------------------------------------------ reading

    /// <summary>The next frame, or null when the broker closed its side.</summary>
    public async Task<ReceivedFrame?> ReadFrameAsync(CancellationToken cancellationToken)
    {
        while (true)
        {
            ReadResult result;
            try
            {
                result = await _input.ReadAsync(cancellationToken);
            }
            catch (IOException)
            {
                return null; // reset by the broker
            }
            var buffer = result.Buffer;
            var status = FrameReader.TryReadFrame(ref buffer, long.MaxValue, out var frame);
            if (status != FrameReadStatus.NeedMoreData)
            {
                var received = new ReceivedFrame(frame.TypeOctet, frame.Channel, frame.Payload.ToArray());
                _input.AdvanceTo(buffer.Start);
                return received;
            }
            _input.AdvanceTo(buffer.Start, buffer.End);
            if (result.IsCompleted) return null;
        }
    }

    /// <summary>Reads exactly <paramref name="count"/> raw bytes, or fewer if the broker closes first.</summary>
    public async Task<byte[]> ReadBytesAsync(int count, CancellationToken cancellationToken)
    {
        while (true)
        {
            ReadResult result;
            try { result = await _input.ReadAsync(cancellationToken); }
            catch (IOException) { return []; }
            var buffer = result.Buffer;
            if (buffer.Length >= count || result.IsCompleted)
            {
                var bytes = buffer.Slice(0, Math.Min(count, buffer.Length)).ToArray();
                _input.AdvanceTo(buffer.GetPosition(bytes.Length));
                return bytes;
            }
            _input.AdvanceTo(buffer.Start, buffer.End);
        }
    }

    /// <summary>Reads frames, skipping heartbeats, until a method frame; fails on end of stream.</summary>
    public async Task<(ushort Channel, IAmqpMethod Method)> ReadMethodAsync(CancellationToken cancellationToken)
    {
        while (true)
        {
            var frame = await ReadFrameAsync(cancellationToken) ?? throw new Xunit.Sdk.XunitException("The broker closed the connection.");
            if (frame.IsHeartbeat) continue;
            if (frame.Type != FrameType.Method) throw new Xunit.Sdk.XunitException($"Expected a method frame, got {frame}.");
            return (frame.Channel, frame.Method);
        }
    }

    public async Task<T> ExpectAsync<T>(CancellationToken cancellationToken) where T : IAmqpMethod
    {
        var (channel, method) = await ReadMethodAsync(cancellationToken);
        return method is T t ? t : throw new Xunit.Sdk.XunitException($"Expected {typeof(T).Name}, got {method} on channel {channel}.");
    }

    /// <summary>Reads until connection.close (skipping anything else), answers close-ok, and returns the close.</summary>
    public async Task<ConnectionClose> ExpectConnectionCloseAsync(CancellationToken cancellationToken)
    {
        while (true)
        {
            var frame = await ReadFrameAsync(cancellationToken)
                        ?? throw new Xunit.Sdk.XunitException("The broker closed the socket without connection.close.");
            if (frame.Type == FrameType.Method && frame.Channel == 0 && frame.Method is ConnectionClose close)
            {
                try { await SendMethodAsync(0, new ConnectionCloseOk(), cancellationToken); }
                catch (IOException) { }
                return close;
            }
        }
    }

    /// <summary>Reads until the broker ends the stream; returns every method frame seen on the way.</summary>
    public async Task<List<IAmqpMethod>> ReadUntilClosedAsync(CancellationToken cancellationToken)
    {
        var methods = new List<IAmqpMethod>();
        while (await ReadFrameAsync(cancellationToken) is { } frame)
            if (frame.Type == FrameType.Method) methods.Add(frame.Method);
        return methods;
    }

    // ------------------------------------------------------------------ conversations

    /// <summary>Header, start/start-ok (PLAIN), tune/tune-ok, open/open-ok. <paramref name="frameMax"/> null accepts the
    /// broker's; <paramref name="heartbeat"/> is sent back in tune-ok.</summary>
    public async Task HandshakeAsync(CancellationToken cancellationToken, uint? frameMax = null, ushort heartbeat = 0,
        string user = "guest", string password = "guest", string virtualHost = "/", IReadOnlyList<string>? extraCapabilities = null)
    {
        await StartAsync(cancellationToken, user, password, extraCapabilities: extraCapabilities);
        var tune = await ExpectAsync<ConnectionTune>(cancellationToken);
        Tune = tune;
        await SendMethodAsync(0, new ConnectionTuneOk { ChannelMax = tune.ChannelMax, FrameMax = frameMax ?? tune.FrameMax, Heartbeat = heartbeat }, cancellationToken);
        await SendMethodAsync(0, new ConnectionOpen { VirtualHost = virtualHost }, cancellationToken);
        await ExpectAsync<ConnectionOpenOk>(cancellationToken);
    }

    /// <summary>Header, connection.start, start-ok with the given credentials (and the authentication_failure_close capability
    /// when asked, plus <paramref name="extraCapabilities"/> set to true).</summary>
    public async Task StartAsync(CancellationToken cancellationToken, string user = "guest", string password = "guest", bool authenticationFailureClose = true,
        IReadOnlyList<string>? extraCapabilities = null)
    {
        await SendProtocolHeaderAsync(cancellationToken);
        await ExpectAsync<ConnectionStart>(cancellationToken);
        var capabilities = authenticationFailureClose ? new FieldTable { ["authentication_failure_close"] = true } : FieldTable.Empty;
        foreach (string capability in extraCapabilities ?? []) capabilities = capabilities.With(capability, true);
        await SendMethodAsync(0, new ConnectionStartOk
        {
            ClientProperties = new FieldTable { ["product"] = FieldValue.LongString("RawTestClient"), ["capabilities"] = FieldValue.Table(capabilities) },
            Mechanism = "PLAIN",
            Response = System.Text.Encoding.UTF8.GetBytes($"\0{user}\0{password}"),
        }, cancellationToken);
    }

    public async Task OpenChannelAsync(ushort channel, CancellationToken cancellationToken)
    {
        await SendMethodAsync(channel, new ChannelOpen(), cancellationToken);
        await ExpectAsync<ChannelOpenOk>(cancellationToken);
    }

    /// <summary>Sends connection.close and waits for close-ok.</summary>
    public async Task CloseAsync(CancellationToken cancellationToken)
    {
        await SendMethodAsync(0, new ConnectionClose { ReplyCode = 200, ReplyText = "bye" }, cancellationToken);
        while (true)
        {
            var (channel, method) = await ReadMethodAsync(cancellationToken);
            if (channel == 0 && method is ConnectionCloseOk) return;
        }
    }

    public async ValueTask DisposeAsync()
    {
        try { await _output.CompleteAsync(); } catch (Exception) { }
        try { await _input.CompleteAsync(); } catch (Exception) { }
        _owned?.Dispose();
    }
}
