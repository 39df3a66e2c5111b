using System.Collections.Concurrent;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;
using Xunit.Abstractions;

namespace AmqpConformance.FakeBroker.Tests.RealClient;

/// <summary>
/// RabbitMQ.Client 7.1.2 against the fake broker: publishes with publisher confirms on several channels at once,
/// bodies from 0 B to 1 MiB, consumes them back byte-exact, and leaves a frame log in which every body frame but
/// the last is exactly frame_max - 8 and the strict profile found nothing.
/// </summary>
public sealed class RabbitMqClientRoundTripTests(ITestOutputHelper output)
{
    private const string Queue = "round-trip";
    private const int Channels = 4;
    private const ushort Prefetch = 10;

    private static int[] Sizes(int frameMax)
    {
        int max = frameMax - AmqpConstants.FrameOverhead;
        return [0, 1, 100, max - 1, max, max + 1, 2 * max, 65536, 200_000, 1024 * 1024];
    }

    private static byte[] Body(int channel, int index, int size)
    {
        var body = new byte[size];
        new Random(channel * 1000 + index).NextBytes(body);
        return body;
    }

    [Theory]
    [InlineData(4096)]
    [InlineData(131072)]
    public async Task Confirmed_publishes_on_several_channels_round_trip_byte_exact(int frameMax)
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        var ct = cts.Token;
        await using var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { FrameMax = frameMax, HeartbeatSeconds = 0 }
        );
        var factory = new ConnectionFactory
        {
            Uri = new Uri(broker.AmqpUri),
            RequestedFrameMax = (uint)frameMax,
            AutomaticRecoveryEnabled = false,
            TopologyRecoveryEnabled = false,
        };
        int[] sizes = Sizes(frameMax);
        var expected = new ConcurrentDictionary<string, byte[]>();
        var received = new ConcurrentDictionary<string, byte[]>();
        int total = Channels * sizes.Length;

        await using (var connection = await factory.CreateConnectionAsync(ct))
        {
            Assert.Equal((uint)frameMax, connection.FrameMax);
            await using (var setup = await connection.CreateChannelAsync(cancellationToken: ct))
                await setup.QueueDeclareAsync(
                    Queue,
                    durable: false,
                    exclusive: false,
                    autoDelete: false,
                    cancellationToken: ct
                );

            // Publish: each channel fires all its publishes at once and awaits their confirms.
            await Task.WhenAll(
                Enumerable
                    .Range(1, Channels)
                    .Select(async c =>
                    {
                        await using var channel = await connection.CreateChannelAsync(
                            new CreateChannelOptions(
                                publisherConfirmationsEnabled: true,
                                publisherConfirmationTrackingEnabled: true
                            ),
                            ct
                        );
                        await Task.WhenAll(
                            sizes.Select(
                                (size, i) =>
                                {
                                    string id = $"{c}-{i}";
                                    var body = Body(c, i, size);
                                    expected[id] = body;
                                    return channel
                                        .BasicPublishAsync(
                                            "",
                                            Queue,
                                            mandatory: true,
                                            new RabbitMQ.Client.BasicProperties { MessageId = id },
                                            body,
                                            ct
                                        )
                                        .AsTask();
                                }
                            )
                        );
                    })
            );
            Assert.Equal(total, broker.FindQueue(Queue)!.MessageCount);

            // Consume back with a prefetch, acking each.
            var all = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            await using var consumerChannel = await connection.CreateChannelAsync(cancellationToken: ct);
            await consumerChannel.BasicQosAsync(0, Prefetch, false, ct);
            var consumer = new AsyncEventingBasicConsumer(consumerChannel);
            consumer.ReceivedAsync += async (_, delivery) =>
            {
                received[delivery.BasicProperties.MessageId!] = delivery.Body.ToArray();
                await consumerChannel.BasicAckAsync(delivery.DeliveryTag, multiple: false, ct);
                if (received.Count == total)
                    all.TrySetResult();
            };
            await consumerChannel.BasicConsumeAsync(Queue, autoAck: false, consumer, ct);
            await all.Task.WaitAsync(ct);
            await connection.CloseAsync(ct);
        }

        Assert.Equal(total, received.Count);
        foreach (var (id, body) in expected)
            Assert.True(
                body.AsSpan().SequenceEqual(received[id]),
                $"message {id} ({body.Length} B) came back different"
            );

        var brokerConnection = Assert.Single(broker.Connections);
        await brokerConnection.Completion.WaitAsync(ct);
        Assert.Equal(CloseInitiator.Client, brokerConnection.CloseInfo!.Initiator);
        AssertFrameLog(brokerConnection, expected, frameMax);
        Assert.Equal(0, broker.FindQueue(Queue)!.MessageCount);
    }

    private void AssertFrameLog(
        BrokerConnection connection,
        ConcurrentDictionary<string, byte[]> expected,
        int frameMax
    )
    {
        var frames = connection.Log.Snapshot();
        int maxBody = frameMax - AmqpConstants.FrameOverhead;
        foreach (var finding in connection.Findings)
            output.WriteLine($"finding: {finding}");
        Assert.Empty(connection.Findings);

        // Every frame, both ways, fits frame_max.
        Assert.All(frames, f =>
            Assert.True(f.WireLength <= frameMax, $"frame {f.Sequence} {f.Direction} {f.Type} is {f.WireLength} B")
        );

        // Each publish: method, header, then body frames of frame_max - 8 except the last, holding the caller's bytes.
        var published = connection.Published;
        Assert.Equal(expected.Count, published.Count);
        var received = frames.Where(f => f.Direction == FrameDirection.Received).ToList();
        var byChannelAfter = received.ToLookup(f => f.Channel);
        foreach (var message in published)
        {
            var body = expected[message.Properties.MessageId!];
            Assert.Equal(body, message.Body.ToArray());
            var onChannel = byChannelAfter[message.Channel].Where(f => f.Sequence > message.MethodSequence).ToList();
            Assert.Equal(FrameType.Header, onChannel[0].Type);
            Assert.Equal(body.Length, onChannel[0].DeclaredBodySize);
            var bodies = onChannel.Skip(1).TakeWhile(f => f.Type == FrameType.Body).ToList();
            Assert.Equal(FrameFormat.BodyFrameCount(body.Length, frameMax), bodies.Count);
            int offset = 0;
            for (int i = 0; i < bodies.Count; i++)
            {
                if (i < bodies.Count - 1)
                    Assert.Equal(maxBody, bodies[i].Size);
                Assert.Equal(FrameDigest.Compute(body.AsSpan(offset, bodies[i].Size)), bodies[i].PayloadDigest);
                offset += bodies[i].Size;
            }
            Assert.Equal(body.Length, offset);
        }

        // Confirms: per channel, the acks cover 1..n exactly once (single or multiple).
        var acks = frames
            .Where(f => f.Direction == FrameDirection.Sent && f.MethodName == "basic.ack")
            .Select(f => (f.Channel, Ack: (BasicAck)MethodCodec.Decode(f.Payload!.Value.Span)))
            .ToList();
        foreach (var group in published.GroupBy(m => m.Channel))
        {
            ulong covered = 0;
            foreach (var (_, ack) in acks.Where(a => a.Channel == group.Key))
            {
                Assert.True(ack.DeliveryTag > covered);
                Assert.True(
                    ack.Multiple || ack.DeliveryTag == covered + 1,
                    $"single ack {ack.DeliveryTag} skips {covered + 1}"
                );
                covered = ack.DeliveryTag;
            }
            Assert.Equal((ulong)group.Count(), covered);
        }
        output.WriteLine(
            $"frame_max {frameMax}: {frames.Count} frames, {acks.Count} basic.ack for {published.Count} publishes "
                + $"({acks.Count(a => a.Ack.Multiple)} with multiple=true)"
        );

        // Deliveries never exceeded the prefetch.
        int outstanding = 0,
            most = 0;
        foreach (var f in frames)
        {
            if (f.Direction == FrameDirection.Sent && f.MethodName == "basic.deliver")
                most = Math.Max(most, ++outstanding);
            else if (f.Direction == FrameDirection.Received && f.MethodName == "basic.ack")
                outstanding--;
        }
        Assert.InRange(most, 1, Prefetch);
        Assert.Equal(0, outstanding);
    }
}
