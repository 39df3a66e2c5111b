using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Routing;

/// <summary>Deleting a queue cancels its consumers. As in RabbitMQ 3.10 (checked against it), a client that announced
/// the consumer_cancel_notify capability gets basic.cancel (nowait) for each; one that did not hears nothing.</summary>
public sealed class QueueDeletionTests : IAsyncLifetime
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(15);
    private FakeAmqpBroker _broker = null!;

    public async Task InitializeAsync() =>
        _broker = await FakeAmqpBroker.StartAsync(new FakeAmqpBrokerOptions { HeartbeatSeconds = 0 });

    public async Task DisposeAsync() => await _broker.DisposeAsync();

    private async Task<AmqpTestClient> ConsumerAsync(string queue, string tag, bool cancelNotify, CancellationToken ct)
    {
        var client = await AmqpTestClient.ConnectAsync(_broker.Endpoint, ct);
        await client.HandshakeAsync(
            new TestPeerHandshake { Capabilities = cancelNotify ? ["consumer_cancel_notify"] : [] },
            cancellationToken: ct
        );
        await client.OpenChannelAsync(1, ct);
        await client.SendMethodAsync(1, new QueueDeclare { Queue = queue }, ct);
        await client.ExpectAsync<QueueDeclareOk>(ct);
        await client.SendMethodAsync(1, new BasicConsume { Queue = queue, ConsumerTag = tag }, ct);
        Assert.Equal(tag, (await client.ExpectAsync<BasicConsumeOk>(ct)).ConsumerTag);
        return client;
    }

    private async Task DeleteFromAnotherConnectionAsync(string queue, CancellationToken ct)
    {
        await using var admin = await AmqpTestClient.ConnectAsync(_broker.Endpoint, ct);
        await admin.HandshakeAsync(cancellationToken: ct);
        await admin.OpenChannelAsync(1, ct);
        await admin.SendMethodAsync(1, new QueueDelete { Queue = queue }, ct);
        await admin.ExpectAsync<QueueDeleteOk>(ct);
        await admin.CloseAsync(ct);
    }

    [Fact]
    public async Task Consumer_of_a_deleted_queue_gets_basic_cancel_when_it_announced_consumer_cancel_notify()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var consumer = await ConsumerAsync("doomed", "c1", cancelNotify: true, cts.Token);
        Assert.Equal(1, _broker.FindQueue("doomed")!.ConsumerCount);

        await DeleteFromAnotherConnectionAsync("doomed", cts.Token);

        var cancel = await consumer.ExpectAsync<BasicCancel>(cts.Token);
        Assert.Equal(("c1", true), (cancel.ConsumerTag, cancel.NoWait));
        Assert.Null(_broker.FindQueue("doomed"));
        // The channel lives on: the client's own cancel of the gone consumer is answered, and new work is served.
        await consumer.SendMethodAsync(1, new BasicCancel { ConsumerTag = "c1" }, cts.Token);
        Assert.Equal("c1", (await consumer.ExpectAsync<BasicCancelOk>(cts.Token)).ConsumerTag);
        await consumer.SendMethodAsync(1, new QueueDeclare { Queue = "doomed" }, cts.Token);
        var redeclared = await consumer.ExpectAsync<QueueDeclareOk>(cts.Token);
        Assert.Equal(0u, redeclared.ConsumerCount);
        await consumer.CloseAsync(cts.Token);
        Assert.Empty(_broker.Connections[0].Findings);
    }

    [Fact]
    public async Task Consumer_without_the_capability_is_cancelled_silently()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var consumer = await ConsumerAsync("doomed-quietly", "c2", cancelNotify: false, cts.Token);

        await DeleteFromAnotherConnectionAsync("doomed-quietly", cts.Token);

        // basic.qos is answered in order: anything the broker sent in between would arrive before qos-ok.
        await consumer.SendMethodAsync(1, new BasicQos { PrefetchCount = 5 }, cts.Token);
        var (_, next) = await consumer.ReadMethodAsync(cts.Token);
        Assert.IsType<BasicQosOk>(next);
        var queue = await RedeclareAsync(consumer, "doomed-quietly", cts.Token);
        Assert.Equal(0u, queue.ConsumerCount); // the consumer is gone, not left dangling on the new queue
        await consumer.CloseAsync(cts.Token);
    }

    [Fact]
    public async Task Deleting_the_queue_one_consumes_from_cancels_before_delete_ok()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await ConsumerAsync("own", "c3", cancelNotify: true, cts.Token);
        await client.SendMethodAsync(1, new QueueDelete { Queue = "own" }, cts.Token);
        Assert.Equal("c3", (await client.ExpectAsync<BasicCancel>(cts.Token)).ConsumerTag);
        await client.ExpectAsync<QueueDeleteOk>(cts.Token);
        // A publish to the deleted queue's name now routes nowhere; the consumer gets nothing.
        await client.PublishAsync(1, "", "own", "lost"u8, 4096, cancellationToken: cts.Token);
        await client.SendMethodAsync(1, new BasicQos { PrefetchCount = 1 }, cts.Token);
        var (_, next) = await client.ReadMethodAsync(cts.Token);
        Assert.IsType<BasicQosOk>(next);
        await client.CloseAsync(cts.Token);
    }

    private static async Task<QueueDeclareOk> RedeclareAsync(AmqpTestClient client, string queue, CancellationToken ct)
    {
        await client.SendMethodAsync(1, new QueueDeclare { Queue = queue }, ct);
        return await client.ExpectAsync<QueueDeclareOk>(ct);
    }
}
