using System.Text;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Routing;

/// <summary>The broker shares the decoded basic.publish and content header between publishes whose bytes repeat, and
/// reuses a channel's content assembler: neither may leak one message's routing, properties or body into the
/// next.</summary>
public sealed class RepeatedPublishTests
{
    [Theory]
    [InlineData(false)] // the unroutable publish's body goes straight back to the pool
    [InlineData(true)]
    public async Task Repeated_and_changing_publishes_each_keep_their_own_routing_properties_and_body(
        bool keepPublished
    )
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        var ct = cts.Token;
        await using var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, KeepPublished = keepPublished },
            ct
        );
        await using var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, ct);
        await client.HandshakeAsync(cancellationToken: ct);
        await client.OpenChannelAsync(1, ct);
        foreach (var q in new[] { "a", "b" })
        {
            await client.SendMethodAsync(1, new QueueDeclare { Queue = q }, ct);
            await client.ExpectAsync<QueueDeclareOk>(ct);
        }
        var plain = new BasicProperties { ContentType = "text/plain" };
        var json = new BasicProperties { ContentType = "application/json" };
        (string Key, BasicProperties Properties, string Body)[] sent =
        [
            ("a", plain, "one"),
            ("a", plain, "two, longer"),
            ("nowhere", plain, "dropped"),
            ("a", plain, "3"),
            ("a", json, "{}"),
            ("b", json, "[1]"),
            ("b", json, ""),
            ("a", plain, new string('x', 5000)),
            ("a", plain, "last"),
        ];
        foreach (var (key, properties, body) in sent)
            await client.PublishAsync(
                1,
                "",
                key,
                Encoding.UTF8.GetBytes(body),
                0,
                properties: properties,
                cancellationToken: ct
            );
        await client.SendMethodAsync(1, new BasicQos(), ct);
        await client.ExpectAsync<BasicQosOk>(ct);

        string[] Bodies(string queue) =>
            [.. broker.FindQueue(queue)!.ReadyMessages().Select(m => Encoding.UTF8.GetString(m.Body.Span))];
        string[] Types(string queue) =>
            [.. broker.FindQueue(queue)!.ReadyMessages().Select(m => m.Properties.ContentType ?? "(none)")];
        Assert.Equal(["one", "two, longer", "3", "{}", new string('x', 5000), "last"], Bodies("a"));
        Assert.Equal(
            ["text/plain", "text/plain", "text/plain", "application/json", "text/plain", "text/plain"],
            Types("a")
        );
        Assert.Equal(["[1]", ""], Bodies("b"));
        Assert.Equal(["application/json", "application/json"], Types("b"));
        Assert.Empty(broker.Connections[0].Findings);
        if (!keepPublished)
            return;
        var published = broker.Connections[0].Published;
        Assert.Equal(sent.Select(s => s.Key), published.Select(m => m.RoutingKey));
        Assert.Equal(sent.Select(s => s.Key == "nowhere" ? 0 : 1), published.Select(m => m.RoutedTo.Count));
        Assert.Equal(sent.Select(s => s.Body), published.Select(m => Encoding.UTF8.GetString(m.Body.Span)));
    }
}
