using System.IO.Pipelines;
using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Robustness;

/// <summary>
/// Seeded random frame streams after a valid handshake: whatever arrives, each connection ends (with a close code or a
/// closed transport), the broker never fails internally, and it keeps serving. The seed of a failing case is in the
/// message.
/// </summary>
public sealed class RandomFrameTests
{
    private static readonly IAmqpMethod[] Methods =
    [
        new BasicPublish { RoutingKey = "q" },
        new BasicPublish { Exchange = "nope" },
        new BasicPublish { RoutingKey = "q", Mandatory = true },
        new QueueDeclare { Queue = "q" },
        new QueueDeclare { Queue = "", Passive = true },
        new QueueBind
        {
            Queue = "q",
            Exchange = "amq.topic",
            RoutingKey = "#",
        },
        new BasicConsume { Queue = "q" },
        new BasicGet { Queue = "q" },
        new BasicAck { DeliveryTag = 1, Multiple = true },
        new BasicNack { DeliveryTag = 0, Multiple = true },
        new BasicQos { PrefetchCount = 1 },
        new ConfirmSelect(),
        new ChannelOpen(),
        new ChannelClose { ReplyCode = 200 },
        new ChannelCloseOk(),
        new ChannelFlow { Active = false },
        new ExchangeDeclare { Exchange = "x", Type = "fanout" },
        new ExchangeDeclare { Exchange = "x", Type = "bogus" },
        new ExchangeBind { Destination = "x", Source = "amq.fanout" },
        new QueuePurge { Queue = "q" },
        new QueueDelete { Queue = "q" },
        new BasicCancel { ConsumerTag = "none" },
        new BasicRecover { Requeue = true },
        new TxSelect(),
        new ConnectionTuneOk(),
        new BasicDeliver(),
        new ConnectionClose { ReplyCode = 200 },
    ];

    private static byte[] RandomFrame(Random random)
    {
        ushort channel = (ushort)random.Next(0, 4);
        switch (random.Next(8))
        {
            case 0:
            case 1:
            case 2:
                return FrameBytes.Method(channel, Methods[random.Next(Methods.Length)]);
            case 3:
                return FrameBytes.Header(channel, (ulong)random.Next(0, 50));
            case 4:
                return FrameBytes.Body(channel, new byte[random.Next(0, 40)]);
            case 5:
                return FrameBytes.Heartbeat(channel);
            case 6:
            {
                var payload = new byte[random.Next(0, 24)];
                random.NextBytes(payload);
                return MalformedFrames.WithFrameEnd(
                    MalformedFrames.UnknownType((byte)random.Next(0, 10), channel, payload),
                    random.Next(10) == 0 ? (byte)0 : AmqpConstants.FrameEnd
                );
            }
            default:
            {
                // A method frame with truncated arguments.
                var whole = MethodCodec.ToPayload(Methods[random.Next(Methods.Length)]);
                return FrameBytes.Frame(FrameType.Method, channel, whole.AsSpan(0, random.Next(0, whole.Length + 1)));
            }
        }
    }

    [Fact]
    public async Task Random_frame_streams_always_end_cleanly()
    {
        await using var broker = FakeAmqpBroker.CreateWithoutListener(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, CloseTimeout = TimeSpan.FromMilliseconds(200) }
        );
        for (int seed = 1; seed <= 150; seed++)
        {
            using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(10));
            var random = new Random(seed);
            await using var served = InMemoryClient.Serve(broker);
            var (connection, client) = (served.Connection, served.Client);
            await client.HandshakeAsync(new TestPeerHandshake { FrameMax = 4096 }, cancellationToken: cts.Token);
            await client.OpenChannelAsync(1, cts.Token);
            var draining = Task.Run(() => client.ReadUntilClosedAsync(cts.Token), cts.Token); // never let the broker's output stall
            int frames = random.Next(1, 30);
            for (int i = 0; i < frames; i++)
                await client.SendBytesAsync(RandomFrame(random), cts.Token);
            await served.EndInput();

            await connection.Completion.WaitAsync(cts.Token);
            await draining;
            Assert.True(connection.CloseInfo is not null, $"seed {seed}: no close info");
            Assert.DoesNotContain(connection.Findings, f => f.Rule == "internal-error");
        }
        Assert.Equal(150, broker.AcceptedConnections);
        Assert.Equal(150, broker.ConnectionSummaries.Count);
        Assert.DoesNotContain(broker.ConnectionSummaries, s => s.InternalError);
        Assert.All(broker.Connections, c => Assert.True(c.Completion.IsCompleted));
    }
}
