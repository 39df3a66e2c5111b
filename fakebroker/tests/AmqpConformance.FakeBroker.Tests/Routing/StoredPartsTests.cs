using System.Text;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Routing;

/// <summary>A queue keeps a message's parts, not an instance (<see cref="QueuedMessage"/>): a read from the queue builds
/// instances equal to every other read's, with the bytes that were published, while a message kept in
/// <see cref="BrokerConnection.Published"/> is the one instance its queues hand out.</summary>
public sealed class StoredPartsTests
{
    private static async Task<FakeAmqpBroker> PublishToTwoQueuesAsync(bool keepPublished, CancellationToken ct)
    {
        var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, KeepPublished = keepPublished },
            ct
        );
        await using var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, ct);
        await client.HandshakeAsync(cancellationToken: ct);
        await client.OpenChannelAsync(1, ct);
        await client.SendMethodAsync(1, new ExchangeDeclare { Exchange = "fan", Type = "fanout" }, ct);
        await client.ExpectAsync<ExchangeDeclareOk>(ct);
        foreach (var q in new[] { "a", "b" })
        {
            await client.SendMethodAsync(1, new QueueDeclare { Queue = q }, ct);
            await client.ExpectAsync<QueueDeclareOk>(ct);
            await client.SendMethodAsync(1, new QueueBind { Queue = q, Exchange = "fan" }, ct);
            await client.ExpectAsync<QueueBindOk>(ct);
        }
        foreach (string body in new[] { "first", "second" })
            await client.PublishAsync(1, "fan", "k", Encoding.UTF8.GetBytes(body), 0, cancellationToken: ct);
        await client.SendMethodAsync(1, new BasicQos(), ct); // a round trip: both publishes were handled before it
        await client.ExpectAsync<BasicQosOk>(ct);
        await client.CloseAsync(ct);
        return broker;
    }

    [Fact]
    public async Task Without_Published_each_read_builds_equal_instances_with_the_published_bytes()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using var broker = await PublishToTwoQueuesAsync(keepPublished: false, cts.Token);

        var a = broker.FindQueue("a")!.ReadyMessages();
        var again = broker.FindQueue("a")!.ReadyMessages();
        var b = broker.FindQueue("b")!.ReadyMessages();

        Assert.Equal(["first", "second"], a.Select(m => Encoding.UTF8.GetString(m.Body.Span)));
        Assert.Equal(a, again);
        Assert.Equal(a, b); // the fanout stored the same parts in both queues
        Assert.NotSame(a[0], again[0]);
        Assert.All(a, m => Assert.Equal(("fan", "k", 2), (m.Exchange, m.RoutingKey, m.RoutedTo.Count)));
        Assert.Empty(broker.Connections[0].Published);
    }

    [Fact]
    public async Task A_message_kept_in_Published_is_the_instance_every_queue_hands_out()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using var broker = await PublishToTwoQueuesAsync(keepPublished: true, cts.Token);

        var published = broker.Connections[0].Published;
        var a = broker.FindQueue("a")!.ReadyMessages();
        var b = broker.FindQueue("b")!.ReadyMessages();

        Assert.Equal(2, published.Count);
        for (int i = 0; i < 2; i++)
        {
            Assert.Same(published[i], a[i]);
            Assert.Same(published[i], b[i]);
        }
    }
}
