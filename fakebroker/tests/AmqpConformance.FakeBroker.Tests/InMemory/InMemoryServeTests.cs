using System.IO.Pipelines;
using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.FakeBroker.Tests.InMemory;

/// <summary><see cref="FakeAmqpBroker.Serve"/> over an in-memory pipe pair behaves exactly as a TCP connection.</summary>
public sealed class InMemoryServeTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(15);

    /// <summary>A script of client bytes: handshake (frame_max 4096), channel, confirms, queue, three publishes of
    /// 0, 5000 and 10000 bytes, a consumer, acks, and a clean close.</summary>
    private static async Task<List<IAmqpMethod>> RunScriptAsync(AmqpTestClient client, CancellationToken ct)
    {
        var seen = new List<IAmqpMethod>();
        await client.HandshakeAsync(new TestPeerHandshake { FrameMax = 4096 }, cancellationToken: ct);
        await client.OpenChannelAsync(1, ct);
        await client.SendMethodAsync(1, new ConfirmSelect(), ct);
        await client.ExpectAsync<ConfirmSelectOk>(ct);
        await client.SendMethodAsync(1, new QueueDeclare { Queue = "work" }, ct);
        seen.Add(await client.ExpectAsync<QueueDeclareOk>(ct));
        foreach (int size in new[] { 0, 5000, 10000 })
        {
            await client.PublishAsync(1, "", "work", Pattern(size), 4096, cancellationToken: ct);
            seen.Add(await client.ExpectAsync<BasicAck>(ct)); // one at a time: each ack is single
        }
        await client.SendMethodAsync(1, new BasicConsume { Queue = "work", ConsumerTag = "c1" }, ct);
        seen.Add(await client.ExpectAsync<BasicConsumeOk>(ct));
        foreach (int size in new[] { 0, 5000, 10000 })
        {
            var deliver = await client.ExpectAsync<BasicDeliver>(ct);
            seen.Add(deliver);
            var header = await client.ReadFrameAsync(ct);
            var declared = ContentHeader.Decode(header!.Payload);
            Assert.Equal((ulong)size, declared.BodySize);
            var body = new List<byte>();
            while (body.Count < size)
            {
                var frame = await client.ReadFrameAsync(ct);
                Assert.Equal(FrameType.Body, frame!.Type);
                Assert.True(frame.Payload.Length <= 4088);
                body.AddRange(frame.Payload);
            }
            Assert.Equal(Pattern(size), body.ToArray());
            await client.SendMethodAsync(1, new BasicAck { DeliveryTag = deliver.DeliveryTag }, ct);
        }
        await client.CloseAsync(ct);
        return seen;
    }

    private static byte[] Pattern(int size) => [.. Enumerable.Range(0, size).Select(i => (byte)(i * 31 + 7))];

    [Fact]
    public async Task Serve_over_pipes_records_the_same_frames_as_TCP()
    {
        using var cts = new CancellationTokenSource(Timeout);
        var options = new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, FrameMax = 4096 };

        await using var tcpBroker = await FakeAmqpBroker.StartAsync(options);
        List<IAmqpMethod> tcpSeen;
        await using (var tcpClient = await AmqpTestClient.ConnectAsync(tcpBroker.Endpoint, cts.Token))
            tcpSeen = await RunScriptAsync(tcpClient, cts.Token);
        var tcpConnection = tcpBroker.Connections.Single();
        await tcpConnection.Completion.WaitAsync(cts.Token);

        await using var memoryBroker = FakeAmqpBroker.CreateWithoutListener(options);
        await using var served = InMemoryClient.Serve(memoryBroker);
        var memoryConnection = served.Connection;
        List<IAmqpMethod> memorySeen = await RunScriptAsync(served.Client, cts.Token);
        await memoryConnection.Completion.WaitAsync(cts.Token);

        Assert.Equal(tcpSeen, memorySeen);
        Assert.Equal(Shape(tcpConnection.Log.Snapshot()), Shape(memoryConnection.Log.Snapshot()));
        Assert.Empty(memoryConnection.Findings);
        Assert.Equal(CloseInitiator.Client, memoryConnection.CloseInfo!.Initiator);
        Assert.Equal(3, memoryConnection.Published.Count);
        Assert.Equal(Pattern(10000), memoryConnection.Published[2].Body.ToArray());
        Assert.Equal((4096, 1, 1), (memoryConnection.FrameMax, memoryConnection.Id, memoryBroker.Connections.Count));
        Assert.Throws<InvalidOperationException>(() => memoryBroker.Endpoint);
    }

    /// <summary>Everything about the frames except timing and how the two directions interleave in the log
    /// (the reader and writer loops append concurrently).</summary>
    private static List<string> Shape(IReadOnlyList<FrameRecord> frames) =>
        [
            .. frames
                .OrderBy(f => f.Direction)
                .ThenBy(f => f.WireOffset)
                .Select(f =>
                    $"{f.Direction} @{f.WireOffset} {f.Type} ch{f.Channel} {f.Size} {f.MethodName} {f.DeclaredBodySize} {f.PayloadDigest} {f.FrameEndValid}"
                ),
        ];

    [Fact]
    public async Task Serve_over_pipes_validates_like_TCP()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var broker = FakeAmqpBroker.CreateWithoutListener(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0 }
        );
        await using var served = InMemoryClient.Serve(broker);
        var (connection, client) = (served.Connection, served.Client);
        await client.HandshakeAsync(cancellationToken: cts.Token);
        await client.OpenChannelAsync(1, cts.Token);
        await client.SendFrameAsync(FrameType.Heartbeat, 1, [], cts.Token);
        var close = await client.ExpectConnectionCloseAsync(cts.Token);
        Assert.Equal(505, close.ReplyCode);
        await connection.Completion.WaitAsync(cts.Token);
        // The broker completed its side of the pipe: the client reads end-of-stream.
        Assert.Null(await client.ReadFrameAsync(cts.Token));
    }

    [Fact]
    public async Task Dispose_returns_even_when_the_client_stopped_reading()
    {
        using var cts = new CancellationTokenSource(Timeout);
        var broker = FakeAmqpBroker.CreateWithoutListener(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, CloseTimeout = TimeSpan.FromMilliseconds(300) }
        );
        var served = InMemoryClient.Serve(
            broker,
            new PipeOptions(pauseWriterThreshold: 16 * 1024, resumeWriterThreshold: 8 * 1024)
        );
        var (connection, client) = (served.Connection, served.Client);
        await client.HandshakeAsync(cancellationToken: cts.Token);
        await client.OpenChannelAsync(1, cts.Token);
        await client.SendMethodAsync(1, new QueueDeclare { Queue = "flood" }, cts.Token);
        await client.ExpectAsync<QueueDeclareOk>(cts.Token);
        await client.SendMethodAsync(1, new BasicConsume { Queue = "flood", NoAck = true }, cts.Token);
        await client.ExpectAsync<BasicConsumeOk>(cts.Token);
        // From here the client never reads: 20 deliveries of 64 KiB back up behind a 16 KiB pipe.
        for (int i = 0; i < 20; i++)
            await client.PublishAsync(1, "", "flood", new byte[64 * 1024], 131072, cancellationToken: cts.Token);
        await Task.Delay(200, cts.Token);
        Assert.False(connection.Completion.IsCompleted);

        await broker.DisposeAsync().AsTask().WaitAsync(cts.Token);

        Assert.True(connection.Completion.IsCompleted);
        Assert.Equal(CloseInitiator.Broker, connection.CloseInfo!.Initiator);
        await served.DisposeAsync();
    }

    [Fact]
    public async Task Dispose_closes_every_connection_with_320_and_returns()
    {
        using var cts = new CancellationTokenSource(Timeout);
        var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, CloseTimeout = TimeSpan.FromMilliseconds(500) }
        );
        await using var polite = await AmqpTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        await polite.HandshakeAsync(cancellationToken: cts.Token);
        await using var silent = await AmqpTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        await silent.HandshakeAsync(cancellationToken: cts.Token); // will never answer close-ok
        var closing = polite.ExpectConnectionCloseAsync(cts.Token);

        await broker.DisposeAsync().AsTask().WaitAsync(cts.Token);

        var close = await closing;
        Assert.Equal(320, close.ReplyCode);
        Assert.All(broker.Connections, c => Assert.True(c.Completion.IsCompleted));
        Assert.All(broker.Connections, c => Assert.Equal(320, c.CloseInfo!.ReplyCode));
        var silentSaw = await silent.ReadUntilClosedAsync(cts.Token); // the broker gave up waiting for close-ok and closed
        Assert.Contains(silentSaw, m => m is ConnectionClose { ReplyCode: 320 });
        Assert.Throws<ObjectDisposedException>(() => InMemoryClient.Serve(broker));
    }
}
