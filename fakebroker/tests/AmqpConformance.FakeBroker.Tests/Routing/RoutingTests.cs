using System.Buffers;
using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Routing;

/// <summary>Exchanges, bindings, mandatory returns, basic.get and requeueing, over the raw client.</summary>
public sealed class RoutingTests : IAsyncLifetime
{
    private FakeAmqpBroker _broker = null!;
    private AmqpTestClient _client = null!;
    private readonly CancellationTokenSource _cts = new(TimeSpan.FromSeconds(20));

    public async Task InitializeAsync()
    {
        _broker = await FakeAmqpBroker.StartAsync(new FakeAmqpBrokerOptions { HeartbeatSeconds = 0 });
        _client = await AmqpTestClient.ConnectAsync(_broker.Endpoint, _cts.Token);
        await _client.HandshakeAsync(cancellationToken: _cts.Token);
        await _client.OpenChannelAsync(1, _cts.Token);
    }

    public async Task DisposeAsync()
    {
        await _client.DisposeAsync();
        await _broker.DisposeAsync();
        _cts.Dispose();
    }

    private CancellationToken Ct => _cts.Token;

    private async Task DeclareQueueAsync(string name)
    {
        await _client.SendMethodAsync(1, new QueueDeclare { Queue = name }, Ct);
        var ok = await _client.ExpectAsync<QueueDeclareOk>(Ct);
        Assert.Equal(name, ok.Queue);
    }

    private async Task BindAsync(string queue, string exchange, string key, FieldTable? arguments = null)
    {
        await _client.SendMethodAsync(
            1,
            new QueueBind
            {
                Queue = queue,
                Exchange = exchange,
                RoutingKey = key,
                Arguments = arguments ?? FieldTable.Empty,
            },
            Ct
        );
        await _client.ExpectAsync<QueueBindOk>(Ct);
    }

    private async Task PublishAndSyncAsync(string exchange, string key, string body, BasicProperties? properties = null)
    {
        await _client.PublishAsync(
            1,
            exchange,
            key,
            System.Text.Encoding.UTF8.GetBytes(body),
            4096,
            properties: properties,
            cancellationToken: Ct
        );
        // A synchronous round trip after the publish: the broker handled it once this answers.
        await _client.SendMethodAsync(1, new BasicQos(), Ct);
        await _client.ExpectAsync<BasicQosOk>(Ct);
    }

    private int Count(string queue) => _broker.FindQueue(queue)!.MessageCount;

    [Fact]
    public async Task Direct_fanout_topic_and_headers_exchanges_route()
    {
        foreach (var q in new[] { "d", "f1", "f2", "t", "h" })
            await DeclareQueueAsync(q);
        await BindAsync("d", "amq.direct", "key");
        await BindAsync("f1", "amq.fanout", "ignored");
        await BindAsync("f2", "amq.fanout", "");
        await BindAsync("t", "amq.topic", "stock.*.nyse");
        await BindAsync(
            "h",
            "amq.headers",
            "",
            new FieldTable { ["x-match"] = FieldValue.LongString("all"), ["kind"] = FieldValue.LongString("a") }
        );

        await PublishAndSyncAsync("amq.direct", "key", "1");
        await PublishAndSyncAsync("amq.direct", "other", "unroutable");
        await PublishAndSyncAsync("amq.fanout", "whatever", "2");
        await PublishAndSyncAsync("amq.topic", "stock.ibm.nyse", "3");
        await PublishAndSyncAsync("amq.topic", "stock.ibm.lse", "unroutable");
        await PublishAndSyncAsync(
            "amq.headers",
            "",
            "4",
            new BasicProperties { Headers = new FieldTable { ["kind"] = FieldValue.LongString("a") } }
        );
        await PublishAndSyncAsync(
            "amq.headers",
            "",
            "unroutable",
            new BasicProperties { Headers = new FieldTable { ["kind"] = FieldValue.LongString("b") } }
        );
        await PublishAndSyncAsync("", "d", "5");

        Assert.Equal((2, 1, 1, 1, 1), (Count("d"), Count("f1"), Count("f2"), Count("t"), Count("h")));
        Assert.Equal(
            ["1", "5"],
            _broker.FindQueue("d")!.ReadyMessages().Select(m => System.Text.Encoding.UTF8.GetString(m.Body.Span))
        );
        var published = _broker.Connections[^1].Published;
        Assert.Equal(8, published.Count);
        Assert.Equal(3, published.Count(m => m.RoutedTo.Count == 0));
    }

    [Fact]
    public async Task Routed_to_names_the_queues_and_cannot_be_changed_through_a_cast()
    {
        foreach (var q in new[] { "one", "f1", "f2" })
            await DeclareQueueAsync(q);
        await BindAsync("f1", "amq.fanout", "");
        await BindAsync("f2", "amq.fanout", "");
        await PublishAndSyncAsync("", "one", "a");
        await PublishAndSyncAsync("", "one", "b");
        await PublishAndSyncAsync("amq.fanout", "", "c");

        var published = _broker.Connections[^1].Published;
        Assert.Equal(
            [
                ["one"],
                ["one"],
                ["f1", "f2"],
            ],
            published.Select(m => m.RoutedTo.ToArray())
        );
        // Messages routed to one queue share that queue's list, so it must be read-only even to a caller who casts it.
        Assert.All(published.Take(2), m =>
            Assert.Throws<NotSupportedException>(() => ((IList<string>)m.RoutedTo)[0] = "changed")
        );
        Assert.Equal("one", published[1].RoutedTo[0]);
    }

    [Fact]
    public async Task Declared_exchange_and_exchange_to_exchange_binding_route()
    {
        await _client.SendMethodAsync(1, new ExchangeDeclare { Exchange = "logs", Type = "topic" }, Ct);
        await _client.ExpectAsync<ExchangeDeclareOk>(Ct);
        await _client.SendMethodAsync(1, new ExchangeDeclare { Exchange = "logs", Passive = true }, Ct);
        await _client.ExpectAsync<ExchangeDeclareOk>(Ct);
        await _client.SendMethodAsync(1, new ExchangeBind { Destination = "logs", Source = "amq.fanout" }, Ct);
        await _client.ExpectAsync<ExchangeBindOk>(Ct);
        await DeclareQueueAsync("errors");
        await BindAsync("errors", "logs", "#.error");
        await PublishAndSyncAsync("amq.fanout", "app.db.error", "via e2e");
        await PublishAndSyncAsync("logs", "app.info", "not an error");
        Assert.Equal(1, Count("errors"));
    }

    [Fact]
    public async Task Mandatory_unroutable_publish_comes_back_as_basic_return_312_before_its_confirm()
    {
        await _client.SendMethodAsync(1, new ConfirmSelect(), Ct);
        await _client.ExpectAsync<ConfirmSelectOk>(Ct);
        await _client.PublishAsync(1, "amq.direct", "nobody", "lost"u8, 4096, mandatory: true, cancellationToken: Ct);
        var returned = await _client.ExpectAsync<BasicReturn>(Ct);
        Assert.Equal(
            (312, "NO_ROUTE", "amq.direct", "nobody"),
            (returned.ReplyCode, returned.ReplyText, returned.Exchange, returned.RoutingKey)
        );
        Assert.Equal(FrameType.Header, (await _client.ReadFrameAsync(Ct))!.Type);
        Assert.Equal("lost"u8.ToArray(), (await _client.ReadFrameAsync(Ct))!.Payload);
        var ack = await _client.ExpectAsync<BasicAck>(Ct);
        Assert.Equal(1UL, ack.DeliveryTag);
    }

    [Fact]
    public async Task Confirms_due_go_out_before_channel_close_ok()
    {
        await DeclareQueueAsync("c");
        await _client.SendMethodAsync(1, new ConfirmSelect(), Ct);
        await _client.ExpectAsync<ConfirmSelectOk>(Ct);
        var bytes = new System.Buffers.ArrayBufferWriter<byte>();
        for (int i = 0; i < 3; i++)
            bytes.Write(FrameBytes.Publish(1, "", "c", new byte[10], 4096));
        bytes.Write(FrameBytes.Method(1, new ChannelClose { ReplyCode = 200, ReplyText = "done" }));
        await _client.SendBytesAsync(bytes.WrittenMemory, Ct);
        var ack = await _client.ExpectAsync<BasicAck>(Ct);
        Assert.Equal((3UL, true), (ack.DeliveryTag, ack.Multiple)); // one read batch: coalesced
        await _client.ExpectAsync<ChannelCloseOk>(Ct);
        Assert.Equal(3, Count("c"));
    }

    [Fact]
    public async Task Get_nack_requeue_and_reject_behave_like_RabbitMQ()
    {
        await DeclareQueueAsync("g");
        await _client.SendMethodAsync(1, new BasicGet { Queue = "g" }, Ct);
        await _client.ExpectAsync<BasicGetEmpty>(Ct);
        await PublishAndSyncAsync("", "g", "one");
        await PublishAndSyncAsync("", "g", "two");

        await _client.SendMethodAsync(1, new BasicGet { Queue = "g" }, Ct);
        var first = await _client.ExpectAsync<BasicGetOk>(Ct);
        Assert.Equal((1UL, false, 1u), (first.DeliveryTag, first.Redelivered, first.MessageCount));
        await _client.ReadFrameAsync(Ct);
        Assert.Equal("one"u8.ToArray(), (await _client.ReadFrameAsync(Ct))!.Payload);

        await _client.SendMethodAsync(1, new BasicNack { DeliveryTag = 1, Requeue = true }, Ct);
        await _client.SendMethodAsync(1, new BasicGet { Queue = "g" }, Ct);
        var again = await _client.ExpectAsync<BasicGetOk>(Ct);
        Assert.Equal((2UL, true), (again.DeliveryTag, again.Redelivered));
        await _client.ReadFrameAsync(Ct);
        Assert.Equal("one"u8.ToArray(), (await _client.ReadFrameAsync(Ct))!.Payload);

        await _client.SendMethodAsync(1, new BasicReject { DeliveryTag = 2, Requeue = false }, Ct);
        await _client.SendMethodAsync(1, new QueueDeclare { Queue = "g", Passive = true }, Ct);
        var declared = await _client.ExpectAsync<QueueDeclareOk>(Ct);
        Assert.Equal(1u, declared.MessageCount); // "one" was dropped, "two" is left

        // An unknown delivery tag closes the channel with 406.
        await _client.SendMethodAsync(1, new BasicAck { DeliveryTag = 99 }, Ct);
        var close = await _client.ExpectAsync<ChannelClose>(Ct);
        Assert.Equal((406, 60, 80), (close.ReplyCode, close.FailingClassId, close.FailingMethodId));
        await _client.SendMethodAsync(1, new ChannelCloseOk(), Ct);
    }

    [Fact]
    public async Task Passive_declare_of_a_missing_queue_closes_the_channel_with_404_and_server_names_queues()
    {
        await _client.SendMethodAsync(1, new QueueDeclare(), Ct);
        var named = await _client.ExpectAsync<QueueDeclareOk>(Ct);
        Assert.StartsWith("amq.gen-", named.Queue, StringComparison.Ordinal);
        Assert.NotNull(_broker.FindQueue(named.Queue));

        await _client.SendMethodAsync(1, new QueueDeclare { Queue = "missing", Passive = true }, Ct);
        var close = await _client.ExpectAsync<ChannelClose>(Ct);
        Assert.Equal(
            (404, "NOT_FOUND - no queue 'missing' in vhost '/'", 50, 10),
            (close.ReplyCode, close.ReplyText, close.FailingClassId, close.FailingMethodId)
        );
    }

    [Fact]
    public async Task Consumer_prefetch_limits_unacked_deliveries()
    {
        await DeclareQueueAsync("p");
        for (int i = 0; i < 5; i++)
            await PublishAndSyncAsync("", "p", i.ToString(System.Globalization.CultureInfo.InvariantCulture));
        await _client.SendMethodAsync(1, new BasicQos { PrefetchCount = 2 }, Ct);
        await _client.ExpectAsync<BasicQosOk>(Ct);
        await _client.SendMethodAsync(1, new BasicConsume { Queue = "p" }, Ct);
        var ok = await _client.ExpectAsync<BasicConsumeOk>(Ct);
        Assert.StartsWith("amq.ctag-", ok.ConsumerTag, StringComparison.Ordinal);
        for (int i = 0; i < 2; i++)
        {
            await _client.ExpectAsync<BasicDeliver>(Ct);
            await _client.ReadFrameAsync(Ct);
            await _client.ReadFrameAsync(Ct);
        }
        // A synchronous round trip: nothing more was delivered while two are unacked.
        await _client.SendMethodAsync(1, new ExchangeDeclare { Exchange = "amq.direct", Passive = true }, Ct);
        await _client.ExpectAsync<ExchangeDeclareOk>(Ct);
        Assert.Equal(3, Count("p"));
        await _client.SendMethodAsync(1, new BasicAck { DeliveryTag = 2, Multiple = true }, Ct);
        var next = await _client.ExpectAsync<BasicDeliver>(Ct);
        Assert.Equal(3UL, next.DeliveryTag);
    }

    [Fact]
    public async Task Purge_empties_a_queue_and_counts_what_it_removed()
    {
        await DeclareQueueAsync("purged");
        for (int i = 0; i < 3; i++)
            await PublishAndSyncAsync("", "purged", "m" + i);
        await _client.SendMethodAsync(1, new QueuePurge { Queue = "purged" }, Ct);
        Assert.Equal(3u, (await _client.ExpectAsync<QueuePurgeOk>(Ct)).MessageCount);
        Assert.Equal(0, Count("purged"));
        await _client.SendMethodAsync(1, new BasicGet { Queue = "purged" }, Ct);
        await _client.ExpectAsync<BasicGetEmpty>(Ct);
    }

    [Fact]
    public async Task Deleted_exchange_routes_nothing_and_a_publish_to_it_is_404()
    {
        await _client.SendMethodAsync(1, new ExchangeDeclare { Exchange = "gone", Type = "fanout" }, Ct);
        await _client.ExpectAsync<ExchangeDeclareOk>(Ct);
        await DeclareQueueAsync("behind-gone");
        await BindAsync("behind-gone", "gone", "");
        await PublishAndSyncAsync("gone", "", "before");
        Assert.Equal(1, Count("behind-gone"));
        await _client.SendMethodAsync(1, new ExchangeDelete { Exchange = "gone" }, Ct);
        await _client.ExpectAsync<ExchangeDeleteOk>(Ct);

        await _client.PublishAsync(1, "gone", "", "after"u8, 4096, cancellationToken: Ct);
        var close = await _client.ExpectAsync<ChannelClose>(Ct);
        Assert.Equal((404, 60, 40), (close.ReplyCode, close.FailingClassId, close.FailingMethodId));
        Assert.Equal(1, Count("behind-gone"));
    }

    [Fact]
    public async Task Cancel_stops_deliveries_and_deletes_an_auto_delete_queue_with_its_last_consumer()
    {
        await _client.SendMethodAsync(1, new QueueDeclare { Queue = "transient", AutoDelete = true }, Ct);
        await _client.ExpectAsync<QueueDeclareOk>(Ct);
        await _client.SendMethodAsync(
            1,
            new BasicConsume
            {
                Queue = "transient",
                ConsumerTag = "only",
                NoAck = true,
            },
            Ct
        );
        await _client.ExpectAsync<BasicConsumeOk>(Ct);
        await _client.PublishAsync(1, "", "transient", "one"u8, 4096, cancellationToken: Ct);
        Assert.Equal("only", (await _client.ExpectAsync<BasicDeliver>(Ct)).ConsumerTag);
        await _client.ReadFrameAsync(Ct); // header
        await _client.ReadFrameAsync(Ct); // body

        await _client.SendMethodAsync(1, new BasicCancel { ConsumerTag = "only" }, Ct);
        Assert.Equal("only", (await _client.ExpectAsync<BasicCancelOk>(Ct)).ConsumerTag);
        Assert.Null(_broker.FindQueue("transient"));
        await PublishAndSyncAsync("", "transient", "two"); // routes nowhere now; nothing is delivered before qos-ok
    }

    [Fact]
    public async Task Without_coalescing_each_publish_gets_its_own_single_ack()
    {
        await using var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, CoalesceConfirms = false }
        );
        await using var client = await AmqpTestClient.ConnectOpenAsync(broker.Endpoint, Ct);
        await client.SendMethodAsync(1, new ConfirmSelect(), Ct);
        await client.ExpectAsync<ConfirmSelectOk>(Ct);
        var batch = new ArrayBufferWriter<byte>();
        for (int i = 0; i < 5; i++)
            batch.Write(FrameBytes.Publish(1, "", "nowhere", "x"u8, 4096));
        await client.SendBytesAsync(batch.WrittenMemory, Ct); // one write: one read batch on the broker
        for (ulong tag = 1; tag <= 5; tag++)
        {
            var ack = await client.ExpectAsync<BasicAck>(Ct);
            Assert.Equal((tag, false), (ack.DeliveryTag, ack.Multiple));
        }
        await client.CloseAsync(Ct);
    }
}
