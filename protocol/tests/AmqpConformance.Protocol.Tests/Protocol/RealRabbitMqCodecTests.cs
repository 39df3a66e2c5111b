using System.Buffers;
using AmqpConformance.TestSupport.Peers;

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
        await using var session = await AmqpTestClient.ConnectAsync(
            RealRabbitMqFactAttribute.Host,
            RealRabbitMqFactAttribute.Port,
            ct
        );

        await session.SendProtocolHeaderAsync(ct);
        var (startFrame, startPayload) = await ReadMethodAsync(session, ct);
        var start = Assert.IsType<ConnectionStart>(startFrame);
        Assert.Equal((0, 9), (start.VersionMajor, start.VersionMinor));
        Assert.Contains("PLAIN", start.Mechanisms.Split(' '));
        Assert.Equal(FieldValueType.Table, start.ServerProperties["capabilities"].Type);
        Assert.Equal(startPayload, MethodCodec.ToPayload(start)); // server's real tables re-encode byte for byte

        await session.SendMethodAsync(
            0,
            new ConnectionStartOk
            {
                ClientProperties = new FieldTable
                {
                    ["product"] = "AmqpConformance codec test",
                    ["capabilities"] = new FieldTable { ["publisher_confirms"] = true, ["basic.nack"] = true },
                },
                Mechanism = "PLAIN",
                Response = "\0guest\0guest"u8.ToArray(),
                Locale = "en_US",
            },
            ct
        );
        var tune = Assert.IsType<ConnectionTune>((await ReadMethodAsync(session, ct)).Method);
        await session.SendMethodAsync(
            0,
            new ConnectionTuneOk
            {
                ChannelMax = tune.ChannelMax,
                FrameMax = 4096,
                Heartbeat = 0,
            },
            ct
        );
        await session.SendMethodAsync(0, new ConnectionOpen { VirtualHost = "/" }, ct);
        Assert.IsType<ConnectionOpenOk>((await ReadMethodAsync(session, ct)).Method);

        await session.SendMethodAsync(1, new ChannelOpen(), ct);
        Assert.IsType<ChannelOpenOk>((await ReadMethodAsync(session, ct)).Method);
        await session.SendMethodAsync(
            1,
            new QueueDeclare
            {
                Exclusive = true,
                AutoDelete = true,
                Arguments = new FieldTable
                {
                    ["x-message-ttl"] = 60000,
                    ["x-max-length"] = 10L,
                    ["x-queue-mode"] = "default",
                },
            },
            ct
        );
        var declared = Assert.IsType<QueueDeclareOk>((await ReadMethodAsync(session, ct)).Method);
        Assert.StartsWith("amq.gen-", declared.Queue);

        var properties = new BasicProperties
        {
            ContentType = "application/octet-stream",
            ContentEncoding = "identity",
            Headers = new FieldTable
            {
                ["t"] = true,
                ["b"] = (sbyte)-1,
                ["B"] = (byte)200,
                ["s"] = (short)-300,
                ["u"] = (ushort)60000,
                ["I"] = -70000,
                ["i"] = 3_000_000_000u,
                ["l"] = long.MinValue,
                ["f"] = 1.5f,
                ["d"] = -2.25,
                ["D"] = new AmqpDecimal(3, -12345),
                ["S"] = "text é",
                ["x"] = new byte[] { 0, 1, 0xFF },
                ["A"] = new FieldArray(1, "two", new FieldTable { ["k"] = 3L }),
                ["T"] = new AmqpTimestamp(1_700_000_000),
                ["F"] = new FieldTable { ["nested"] = new FieldArray() },
                ["V"] = FieldValue.Void,
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
        wire.WriteMethodFrame(
            1,
            new BasicPublish
            {
                Exchange = "",
                RoutingKey = declared.Queue,
                Mandatory = true,
            }
        );
        wire.WriteHeaderFrame(1, new ContentHeader((ulong)body.Length, properties));
        FrameFormat.WriteBodyFrames(wire, 1, body, 4096);
        await session.SendBytesAsync(wire.WrittenMemory, ct);

        await session.SendMethodAsync(1, new BasicGet { Queue = declared.Queue, NoAck = true }, ct);
        var getOk = Assert.IsType<BasicGetOk>((await ReadMethodAsync(session, ct)).Method);
        Assert.Equal(declared.Queue, getOk.RoutingKey);
        var (headerType, headerPayload) = await ReadFrameAsync(session, ct);
        Assert.Equal(FrameType.Header, headerType);
        var header = ContentHeader.Decode(headerPayload);
        Assert.Equal((ulong)body.Length, header.BodySize);
        Assert.Equal(properties, header.Properties);
        var received = new List<byte>();
        while (received.Count < body.Length)
        {
            var (type, payload) = await ReadFrameAsync(session, ct);
            Assert.Equal(FrameType.Body, type);
            Assert.True(payload.Length <= 4088);
            received.AddRange(payload);
        }
        Assert.Equal(body, received);

        await session.SendMethodAsync(0, new ConnectionClose { ReplyCode = 200, ReplyText = "bye" }, ct);
        Assert.IsType<ConnectionCloseOk>((await ReadMethodAsync(session, ct)).Method);
    }

    /// <summary>The next frame, which must be a method frame and not a close.</summary>
    private static async Task<(IAmqpMethod Method, byte[] Payload)> ReadMethodAsync(
        AmqpTestClient session,
        CancellationToken ct
    )
    {
        var (type, payload) = await ReadFrameAsync(session, ct);
        Assert.Equal(FrameType.Method, type);
        var method = MethodCodec.Decode(payload);
        if (method is ConnectionClose or ChannelClose)
            Assert.Fail($"RabbitMQ closed: {method}");
        return (method, payload);
    }

    /// <summary>The next frame; RabbitMQ must not close the socket or send a broken frame.</summary>
    private static async Task<(FrameType Type, byte[] Payload)> ReadFrameAsync(
        AmqpTestClient session,
        CancellationToken ct
    )
    {
        ReceivedFrame? frame = await session.ReadFrameAsync(ct);
        Assert.False(frame is null, "RabbitMQ closed the socket.");
        Assert.True(
            frame.EndOctet == AmqpConstants.FrameEnd && !frame.IsProtocolHeader,
            $"RabbitMQ sent {frame}, not a frame."
        );
        Assert.True(frame.Payload.Length <= FrameReader.MaxPayloadFor(131072));
        return (frame.Type, frame.Payload);
    }
}
