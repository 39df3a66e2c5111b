using System.Buffers;
using System.IO.Pipelines;
using System.Net.Sockets;

namespace AmqpConformance.Protocol.Tests;

/// <summary>
/// The codec against the reference implementation: a real RabbitMQ must accept every frame we encode, and
/// what it sends must decode and re-encode to the very same bytes.
/// </summary>
public class RealRabbitMqCodecTests
{
    [RealRabbitMqFact]
    public async Task Handshake_declare_publish_and_get_against_real_rabbitmq()
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        var ct = timeout.Token;
        await using var session = await RawSession.ConnectAsync(ct);

        await session.SendAsync(AmqpConstants.ProtocolHeader.ToArray(), ct);
        var (startFrame, startPayload) = await session.ReadMethodAsync(ct);
        var start = Assert.IsType<ConnectionStart>(startFrame);
        Assert.Equal((0, 9), (start.VersionMajor, start.VersionMinor));
        Assert.Contains("PLAIN", start.Mechanisms.Split(' '));
        Assert.Equal(FieldValueType.Table, start.ServerProperties["capabilities"].Type);
        Assert.Equal(startPayload, MethodCodec.ToPayload(start));   // server's real tables re-encode byte for byte

        await session.SendMethodAsync(0, new ConnectionStartOk
        {
            ClientProperties = new FieldTable
            {
                ["product"] = "AmqpConformance codec test",
                ["capabilities"] = new FieldTable { ["publisher_confirms"] = true, ["basic.nack"] = true },
            },
            Mechanism = "PLAIN",
            Response = "\0guest\0guest"u8.ToArray(),
            Locale = "en_US",
        }, ct);
        var tune = Assert.IsType<ConnectionTune>((await session.ReadMethodAsync(ct)).Method);
        await session.SendMethodAsync(0, new ConnectionTuneOk { ChannelMax = tune.ChannelMax, FrameMax = 4096, Heartbeat = 0 }, ct);
        await session.SendMethodAsync(0, new ConnectionOpen { VirtualHost = "/" }, ct);
        Assert.IsType<ConnectionOpenOk>((await session.ReadMethodAsync(ct)).Method);

        await session.SendMethodAsync(1, new ChannelOpen(), ct);
        Assert.IsType<ChannelOpenOk>((await session.ReadMethodAsync(ct)).Method);
        await session.SendMethodAsync(1, new QueueDeclare
        {
            Exclusive = true,
            AutoDelete = true,
            Arguments = new FieldTable { ["x-message-ttl"] = 60000, ["x-max-length"] = 10L, ["x-queue-mode"] = "default" },
        }, ct);
        var declared = Assert.IsType<QueueDeclareOk>((await session.ReadMethodAsync(ct)).Method);
        Assert.StartsWith("amq.gen-", declared.Queue);

        var properties = new BasicProperties
        {
            ContentType = "application/octet-stream",
            ContentEncoding = "identity",
            Headers = new FieldTable
            {
                ["t"] = true, ["b"] = (sbyte)-1, ["B"] = (byte)200, ["s"] = (short)-300, ["u"] = (ushort)60000,
                ["I"] = -70000, ["i"] = 3_000_000_000u, ["l"] = long.MinValue, ["f"] = 1.5f, ["d"] = -2.25,
                ["D"] = new AmqpDecimal(3, -12345), ["S"] = "text é", ["x"] = new byte[] { 0, 1, 0xFF },
                ["A"] = new FieldArray(1, "two", new FieldTable { ["k"] = 3L }), ["T"] = new AmqpTimestamp(1_700_000_000),
                ["F"] = new FieldTable { ["nested"] = new FieldArray() }, ["V"] = FieldValue.Void,
            },
            DeliveryMode = 2,
            Priority = 3,
            CorrelationId = "corr",
            ReplyTo = "reply",
            Expiration = "60000",
            MessageId = "id-1",
            Timestamp = new AmqpTimestamp(1_700_000_001),
            Type = "kind",
            UserId = "guest",
            AppId = "codec-tests",
        };
        byte[] body = Enumerable.Range(0, 10_000).Select(i => (byte)(i * 7)).ToArray();
        var wire = new ArrayBufferWriter<byte>();
        wire.WriteMethodFrame(1, new BasicPublish { Exchange = "", RoutingKey = declared.Queue, Mandatory = true });
        wire.WriteHeaderFrame(1, new ContentHeader((ulong)body.Length, properties));
        FrameFormat.WriteBodyFrames(wire, 1, body, 4096);
        await session.SendAsync(wire.WrittenMemory.ToArray(), ct);

        await session.SendMethodAsync(1, new BasicGet { Queue = declared.Queue, NoAck = true }, ct);
        var getOk = Assert.IsType<BasicGetOk>((await session.ReadMethodAsync(ct)).Method);
        Assert.Equal(declared.Queue, getOk.RoutingKey);
        var (headerType, headerPayload) = await session.ReadFrameAsync(ct);
        Assert.Equal(FrameType.Header, headerType);
        var header = ContentHeader.Decode(headerPayload);
        Assert.Equal((ulong)body.Length, header.BodySize);
        Assert.Equal(properties, header.Properties);
        var received = new List<byte>();
        while (received.Count < body.Length)
        {
            var (type, payload) = await session.ReadFrameAsync(ct);
            Assert.Equal(FrameType.Body, type);
            Assert.True(payload.Length <= 4088);
            received.AddRange(payload);
        }
        Assert.Equal(body, received);

        await session.SendMethodAsync(0, new ConnectionClose { ReplyCode = 200, ReplyText = "bye" }, ct);
        Assert.IsType<ConnectionCloseOk>((await session.ReadMethodAsync(ct)).Method);
    }

    private sealed class RawSession : IAsyncDisposable
    {
        private readonly TcpClient _client;
        private readonly NetworkStream _stream;
        private readonly PipeReader _reader;

        private RawSession(TcpClient client)
        {
            _client = client;
            _stream = client.GetStream();
            _reader = PipeReader.Create(_stream);
        }

        public static async Task<RawSession> ConnectAsync(CancellationToken ct)
        {
            var client = new TcpClient();
            await client.ConnectAsync(RealRabbitMqFactAttribute.Host, RealRabbitMqFactAttribute.Port, ct);
            return new RawSession(client);
        }

        public ValueTask SendAsync(byte[] bytes, CancellationToken ct) => _stream.WriteAsync(bytes, ct);

        public ValueTask SendMethodAsync(ushort channel, IAmqpMethod method, CancellationToken ct)
        {
            var buffer = new ArrayBufferWriter<byte>();
            buffer.WriteMethodFrame(channel, method);
            return _stream.WriteAsync(buffer.WrittenMemory, ct);
        }

        public async Task<(IAmqpMethod Method, byte[] Payload)> ReadMethodAsync(CancellationToken ct)
        {
            var (type, payload) = await ReadFrameAsync(ct);
            Assert.Equal(FrameType.Method, type);
            var method = MethodCodec.Decode(payload);
            if (method is ConnectionClose or ChannelClose)
                Assert.Fail($"RabbitMQ closed: {method}");
            return (method, payload);
        }

        public async Task<(FrameType Type, byte[] Payload)> ReadFrameAsync(CancellationToken ct)
        {
            while (true)
            {
                var result = await _reader.ReadAsync(ct);
                var buffer = result.Buffer;
                var status = FrameReader.TryReadFrame(ref buffer, FrameReader.MaxPayloadFor(131072), out var frame);
                if (status == FrameReadStatus.Frame)
                {
                    byte[] payload = frame.Payload.ToArray();
                    _reader.AdvanceTo(buffer.Start);
                    return (frame.Type, payload);
                }
                Assert.Equal(FrameReadStatus.NeedMoreData, status);
                Assert.False(result.IsCompleted, "RabbitMQ closed the socket.");
                _reader.AdvanceTo(buffer.Start, buffer.End);
            }
        }

        public async ValueTask DisposeAsync()
        {
            await _reader.CompleteAsync();
            await _stream.DisposeAsync();
            _client.Dispose();
        }
    }
}
