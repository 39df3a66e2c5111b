using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Routing;

/// <summary>A stored <see cref="DeliveredMessage"/> shares what consecutive publishes of its channel agree on
/// (<see cref="PublishOrigin"/>) and a repeated content header (<see cref="ContentHead"/>) with the messages before it,
/// yet reads and compares exactly as a message with fields of its own: nothing of one message shows in another, and a
/// copy made with <c>with</c> changes only itself.</summary>
public sealed class SharedOriginTests
{
    private static DeliveredMessage Built(string routingKey, ulong? confirm) =>
        new()
        {
            ConnectionId = 7,
            Channel = 3,
            Exchange = "ex",
            RoutingKey = routingKey,
            Mandatory = true,
            ConfirmSequence = confirm,
            Properties = new BasicProperties { ContentType = "text/plain" },
            HeaderPayload = ReadOnlyMemory<byte>.Empty,
            Body = new byte[] { 1, 2, 3 },
            MethodSequence = 42,
            RoutedTo = ["q"],
        };

    [Fact]
    public async Task Consecutive_publishes_that_agree_share_one_origin_and_head_and_keep_their_own_numbers()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        var ct = cts.Token;
        await using var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0 },
            ct
        );
        await using var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, ct);
        await client.HandshakeAsync(cancellationToken: ct);
        await client.OpenChannelAsync(1, ct);
        await client.SendMethodAsync(1, new ConfirmSelect(), ct);
        await client.ExpectAsync<ConfirmSelectOk>(ct);
        foreach (var q in new[] { "a", "b" })
        {
            await client.SendMethodAsync(1, new QueueDeclare { Queue = q }, ct);
            await client.ExpectAsync<QueueDeclareOk>(ct);
        }
        var properties = new BasicProperties { ContentType = "text/plain" };
        (string Key, bool Mandatory)[] sent = [("a", false), ("a", false), ("a", false), ("a", true), ("b", false)];
        foreach (var (key, mandatory) in sent)
        {
            await client.PublishAsync(1, "", key, new byte[] { 9 }, 0, mandatory, properties, ct);
            await client.ExpectAsync<BasicAck>(ct);
        }

        var a = broker.FindQueue("a")!.ReadyMessages();
        var b = broker.FindQueue("b")!.ReadyMessages();
        Assert.Same(a[0].Origin, a[1].Origin);
        Assert.Same(a[1].Origin, a[2].Origin);
        Assert.NotSame(a[2].Origin, a[3].Origin); // mandatory differs
        Assert.NotSame(a[3].Origin, b[0].Origin); // routing key and queue differ
        Assert.Same(a[0].Head, b[0].Head); // the same header bytes throughout
        Assert.Equal([1UL, 2, 3, 4], a.Select(m => m.ConfirmSequence!.Value));
        Assert.Equal(5UL, b[0].ConfirmSequence);
        Assert.Equal([false, false, false, true], a.Select(m => m.Mandatory));
        Assert.Equal(4, a.Select(m => m.MethodSequence).Distinct().Count());
        Assert.All(a, m => Assert.Equal(["a"], m.RoutedTo));
        Assert.Equal("b", b[0].RoutingKey);
        Assert.Equal(["b"], b[0].RoutedTo);
        Assert.All(a.Concat(b), m => Assert.Equal((1, "text/plain"), (m.Channel, m.Properties.ContentType)));
        Assert.All(a.Concat(b), m => Assert.Equal(broker.Connections[0].Id, m.ConnectionId));
    }

    [Fact]
    public void A_message_built_from_its_properties_reads_back_what_it_was_given()
    {
        var message = Built("rk", confirm: 5);

        Assert.Equal(
            (7L, (ushort)3, "ex", "rk", true, (ulong?)5, "text/plain", 42L),
            (
                message.ConnectionId,
                message.Channel,
                message.Exchange,
                message.RoutingKey,
                message.Mandatory,
                message.ConfirmSequence,
                message.Properties.ContentType,
                message.MethodSequence
            )
        );
        Assert.Equal(new byte[] { 1, 2, 3 }, message.Body.ToArray());
        Assert.Equal(["q"], message.RoutedTo);
        Assert.Null(Built("rk", confirm: null).ConfirmSequence);
        Assert.Equal(0UL, Built("rk", confirm: 0).ConfirmSequence); // zero is a value, not "none"
    }

    [Fact]
    public void A_copy_made_with_with_changes_only_itself_and_equality_is_by_value()
    {
        var original = Built("rk", confirm: 5);
        var copy = original with { RoutingKey = "other", ConfirmSequence = null };

        Assert.Equal("rk", original.RoutingKey);
        Assert.Equal(5UL, original.ConfirmSequence);
        Assert.Equal("other", copy.RoutingKey);
        Assert.Null(copy.ConfirmSequence);
        Assert.Equal(original.Exchange, copy.Exchange);
        Assert.NotEqual(original, copy);
        Assert.Equal(original, copy with { RoutingKey = "rk", ConfirmSequence = 5 });

        var twin = Built("rk", confirm: 5) with { Body = original.Body, RoutedTo = original.RoutedTo };
        Assert.Equal(original, twin);
        Assert.Equal(original.GetHashCode(), twin.GetHashCode());
    }
}
