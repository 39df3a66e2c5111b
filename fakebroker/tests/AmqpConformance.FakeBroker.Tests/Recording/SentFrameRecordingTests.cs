using System.Security.Cryptography;
using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.FakeBroker.Tests.Recording;

/// <summary>With <see cref="FrameLogOptions.RecordSent"/> (the default) the log holds every frame the broker wrote, at
/// the offsets it wrote them; without it, none.</summary>
public sealed class SentFrameRecordingTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(15);

    /// <summary>Handshake at frame_max 4096, a 10 000-byte message published and fetched back with basic.get,
    /// close.</summary>
    private static async Task<BrokerConnection> RunAsync(FrameLogOptions log, byte[] body)
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions
            {
                HeartbeatSeconds = 0,
                FrameMax = 4096,
                FrameLog = log,
            }
        );
        await using var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        await client.HandshakeAsync(cancellationToken: cts.Token);
        await client.OpenChannelAsync(1, cts.Token);
        await client.SendMethodAsync(1, new QueueDeclare { Queue = "q" }, cts.Token);
        await client.ExpectAsync<QueueDeclareOk>(cts.Token);
        await client.PublishAsync(1, "", "q", body, 4096, cancellationToken: cts.Token);
        await client.SendMethodAsync(1, new BasicGet { Queue = "q", NoAck = true }, cts.Token);
        await client.ExpectAsync<BasicGetOk>(cts.Token);
        for (int got = -1; got < body.Length; ) // header, then body frames
        {
            var frame = await client.ReadFrameAsync(cts.Token);
            got = got < 0 ? 0 : got + frame!.Payload.Length;
        }
        await client.CloseAsync(cts.Token);
        var connection = broker.Connections.Single();
        await connection.Completion.WaitAsync(cts.Token);
        return connection;
    }

    [Fact]
    public async Task Every_sent_frame_is_recorded_contiguously_with_its_ids_and_body_digests()
    {
        byte[] body = RandomNumberGenerator.GetBytes(10_000);
        var connection = await RunAsync(new FrameLogOptions { CaptureBodies = true }, body);
        var sent = connection.Log.Snapshot().Where(f => f.Direction == FrameDirection.Sent).ToList();

        Assert.Equal(
            [
                "connection.start",
                "connection.tune",
                "connection.open-ok",
                "channel.open-ok",
                "queue.declare-ok",
                "basic.get-ok",
                "connection.close-ok",
            ],
            sent.Where(f => f.Type == FrameType.Method).Select(f => f.MethodName)
        );
        long offset = 0; // the broker sends no protocol header: its first frame is at 0
        foreach (var frame in sent)
        {
            Assert.Equal(offset, frame.WireOffset);
            Assert.True(frame.FrameEndValid);
            offset += frame.WireLength;
        }
        var header = Assert.Single(sent, f => f.Type == FrameType.Header);
        Assert.Equal((60, 10_000L), (header.ClassId, header.DeclaredBodySize!.Value));
        var bodies = sent.Where(f => f.Type == FrameType.Body).ToList();
        Assert.Equal([4088, 4088, 1824], bodies.Select(f => f.Size));
        Assert.Equal(body, bodies.SelectMany(f => f.Payload!.Value.ToArray()).ToArray());
        Assert.All(bodies, f => Assert.Equal(FrameDigest.Compute(f.Payload!.Value.Span), f.PayloadDigest)); // the log's one digest definition
        // Received and sent frames share one sequence.
        Assert.Equal(
            Enumerable.Range(0, connection.Log.Count).Select(i => (long)i),
            connection.Log.Snapshot().Select(f => f.Sequence)
        );
    }

    [Fact]
    public async Task Without_RecordSent_only_received_frames_are_kept()
    {
        var connection = await RunAsync(new FrameLogOptions { RecordSent = false }, new byte[5000]);
        var frames = connection.Log.Snapshot();
        Assert.All(frames, f => Assert.Equal(FrameDirection.Received, f.Direction));
        Assert.Contains(frames, f => f.MethodName == "basic.get");
        Assert.All(frames.Where(f => f.Type == FrameType.Body), f => Assert.Null(f.Payload)); // digests only
    }

    [Fact]
    public async Task A_live_subscriber_attached_on_accept_sees_every_frame_the_log_keeps()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var broker = await FakeAmqpBroker.StartAsync(new FakeAmqpBrokerOptions { HeartbeatSeconds = 0 });
        var seen = new System.Collections.Concurrent.ConcurrentQueue<FrameRecord>();
        broker.ConnectionAccepted += c => c.Log.Subscribe(seen.Enqueue);
        await using (var client = await AmqpTestClient.ConnectOpenAsync(broker.Endpoint, cts.Token))
        {
            await client.PublishAsync(1, "", "nowhere", new byte[300_000], 131072, cancellationToken: cts.Token);
            await client.CloseAsync(cts.Token);
        }
        var connection = broker.Connections.Single();
        await connection.Completion.WaitAsync(cts.Token);
        // Both loops append; callbacks run on the appending thread, so compare in sequence order.
        Assert.Equal(connection.Log.Snapshot(), seen.OrderBy(f => f.Sequence));
        Assert.Equal(3, seen.Count(f => f.Type == FrameType.Body && f.Direction == FrameDirection.Received));
    }
}
