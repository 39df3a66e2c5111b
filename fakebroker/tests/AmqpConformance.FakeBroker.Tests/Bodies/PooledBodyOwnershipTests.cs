using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Bodies;

/// <summary>Over a real connection, with <see cref="FakeAmqpBrokerOptions.KeepPublished"/> off (the setting under which
/// large routed bodies come from the shared <see cref="BodyPool"/>): every body a test or a consumer was given keeps
/// its own bytes while later publishes of the same size reuse whatever queues gave back.</summary>
public sealed class PooledBodyOwnershipTests
{
    private const int Size = 300 * 1024; // pooled, and spread over several body frames

    private static async Task<(FakeAmqpBroker Broker, AmqpTestClient Client)> StartAsync(CancellationToken ct)
    {
        var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, KeepPublished = false },
            ct
        );
        var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, ct);
        await client.HandshakeAsync(cancellationToken: ct);
        await client.OpenChannelAsync(1, ct);
        return (broker, client);
    }

    private static async Task DeclareAsync(AmqpTestClient client, string queue, CancellationToken ct)
    {
        await client.SendMethodAsync(1, new QueueDeclare { Queue = queue }, ct);
        await client.ExpectAsync<QueueDeclareOk>(ct);
    }

    /// <summary>Publishes bodies filled with <paramref name="fill"/>, then a basic.qos round trip so that the broker
    /// has handled them all.</summary>
    private static async Task PublishAsync(
        AmqpTestClient client,
        string queue,
        byte fill,
        int count,
        CancellationToken ct
    )
    {
        byte[] body = new byte[Size];
        body.AsSpan().Fill(fill);
        for (int i = 0; i < count; i++)
            await client.PublishAsync(1, "", queue, body, 131072, cancellationToken: ct);
        await client.SendMethodAsync(1, new BasicQos(), ct);
        await client.ExpectAsync<BasicQosOk>(ct);
    }

    private static bool AllAre(ReadOnlySpan<byte> body, byte fill) =>
        body.Length == Size && body.IndexOfAnyExcept(fill) < 0;

    [Fact]
    public async Task Messages_read_from_a_queue_keep_their_bodies_after_a_purge_and_many_later_publishes()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var ct = cts.Token;
        var (broker, client) = await StartAsync(ct);
        await using var _ = broker;
        await using var __ = client;
        await DeclareAsync(client, "q", ct);

        await PublishAsync(client, "q", 0xA1, 3, ct);
        IReadOnlyList<DeliveredMessage> held = broker.FindQueue("q")!.ReadyMessages();
        await client.SendMethodAsync(1, new QueuePurge { Queue = "q" }, ct);
        Assert.Equal(3u, (await client.ExpectAsync<QueuePurgeOk>(ct)).MessageCount);

        // Unread bodies go back and come round again; the three read ones must not be among them.
        for (int round = 0; round < 4; round++)
        {
            await PublishAsync(client, "q", (byte)(0xB0 + round), 3, ct);
            await client.SendMethodAsync(1, new QueuePurge { Queue = "q" }, ct);
            await client.ExpectAsync<QueuePurgeOk>(ct);
        }

        Assert.All(held, m =>
            Assert.True(AllAre(m.Body.Span, 0xA1), "a body handed out was overwritten by a later publish")
        );
        Assert.Empty(broker.Connections[0].Findings);
    }

    [Fact]
    public async Task A_delivery_carries_its_own_bytes_although_its_queue_was_deleted_and_refilled_before_it_was_read()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var ct = cts.Token;
        var (broker, consumer) = await StartAsync(ct);
        await using var _ = broker;
        await using var __ = consumer;
        await DeclareAsync(consumer, "consumed", ct);
        await consumer.SendMethodAsync(
            1,
            new BasicConsume
            {
                Queue = "consumed",
                ConsumerTag = "c",
                NoAck = true,
            },
            ct
        );
        await consumer.ExpectAsync<BasicConsumeOk>(ct);

        // Another connection publishes the delivery while the consumer reads nothing, then deletes and refills a queue
        // with bodies of the same size, so that a delivered body given back too early would be overwritten before the
        // consumer reads it.
        await using var publisher = await AmqpTestClient.ConnectAsync(broker.Endpoint, ct);
        await publisher.HandshakeAsync(cancellationToken: ct);
        await publisher.OpenChannelAsync(1, ct);
        await PublishAsync(publisher, "consumed", 0xC3, 1, ct);
        await DeclareAsync(publisher, "other", ct);
        for (int round = 0; round < 3; round++)
        {
            await PublishAsync(publisher, "other", (byte)(0xD0 + round), 2, ct);
            await publisher.SendMethodAsync(1, new QueueDelete { Queue = "other" }, ct);
            await publisher.ExpectAsync<QueueDeleteOk>(ct);
            await DeclareAsync(publisher, "other", ct);
        }

        var deliver = await consumer.ExpectContentAsync<BasicDeliver>(ct);
        Assert.True(AllAre(deliver.Body, 0xC3));
        Assert.All(broker.Connections, c => Assert.Empty(c.Findings));
    }

    [Fact]
    public async Task Bodies_of_an_exclusive_queue_return_when_its_connection_ends_and_later_bodies_are_whole()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var ct = cts.Token;
        var (broker, first) = await StartAsync(ct);
        await using var _ = broker;
        await first.SendMethodAsync(1, new QueueDeclare { Queue = "mine", Exclusive = true }, ct);
        await first.ExpectAsync<QueueDeclareOk>(ct);
        await PublishAsync(first, "mine", 0xE1, 4, ct);
        await first.CloseAsync(ct);
        await first.DisposeAsync();

        await using var second = await AmqpTestClient.ConnectAsync(broker.Endpoint, ct);
        await second.HandshakeAsync(cancellationToken: ct);
        await second.OpenChannelAsync(1, ct);
        await DeclareAsync(second, "next", ct);
        await PublishAsync(second, "next", 0xF2, 4, ct);

        Assert.Null(broker.FindQueue("mine"));
        Assert.All(broker.FindQueue("next")!.ReadyMessages(), m => Assert.True(AllAre(m.Body.Span, 0xF2)));
    }
}
