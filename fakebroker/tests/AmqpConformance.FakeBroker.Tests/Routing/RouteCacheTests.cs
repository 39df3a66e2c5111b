using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Routing;

/// <summary><see cref="RouteCache"/>: a publish to the same place as the last one is answered from the cache, and every
/// change of what routing reads (queues and exchanges declared or deleted, bindings added or removed) is seen by the
/// very next publish.</summary>
public sealed class RouteCacheTests
{
    private static VirtualHost HostWithQueue(string queue, string bindingKey)
    {
        var host = new VirtualHost("/");
        host.DeclareQueue(new QueueDeclare { Queue = queue }, connectionId: 1);
        host.Bind("amq.direct", queue, destinationIsExchange: false, bindingKey, FieldTable.Empty, unbind: false);
        return host;
    }

    private static string[] Names(IReadOnlyList<BrokerQueue> queues) => [.. queues.Select(q => q.Name)];

    [Fact]
    public void The_same_publish_again_gets_the_same_answer_without_routing_again()
    {
        var host = HostWithQueue("q", "k");
        var cache = new RouteCache();
        string exchange = "amq.direct",
            key = "k";
        var first = cache.Route(host, exchange, key, null);
        Assert.Equal(["q"], Names(first));
        Assert.Same(first, cache.Route(host, exchange, key, null));
        // Equal strings that are other objects are routed, not looked up: the cache compares references only.
        var other = cache.Route(host, new string("amq.direct".AsSpan()), new string("k".AsSpan()), null);
        Assert.Equal(["q"], Names(other));
        Assert.NotSame(first, other);
    }

    [Fact]
    public void Every_change_of_the_topology_is_seen_by_the_next_publish()
    {
        var host = HostWithQueue("q", "k");
        var cache = new RouteCache();
        string exchange = "amq.direct",
            key = "k";
        Assert.Equal(["q"], Names(cache.Route(host, exchange, key, null)));

        host.Bind("amq.direct", "q", false, "k", FieldTable.Empty, unbind: true);
        Assert.Empty(cache.Route(host, exchange, key, null));

        host.DeclareQueue(new QueueDeclare { Queue = "q2" }, 1);
        host.Bind("amq.direct", "q2", false, "k", FieldTable.Empty, unbind: false);
        Assert.Equal(["q2"], Names(cache.Route(host, exchange, key, null)));

        host.Bind("amq.direct", "q", false, "k", FieldTable.Empty, unbind: false);
        Assert.Equal(["q2", "q"], Names(cache.Route(host, exchange, key, null)));

        host.DeleteQueue("q2", ifUnused: false, ifEmpty: false, connectionId: 1);
        Assert.Equal(["q"], Names(cache.Route(host, exchange, key, null)));

        // Through an exchange that is declared, bound to, then deleted.
        string custom = "x";
        host.DeclareExchange(new ExchangeDeclare { Exchange = custom, Type = "fanout" });
        Assert.Empty(cache.Route(host, custom, key, null));
        host.Bind(custom, "q", false, "", FieldTable.Empty, unbind: false);
        Assert.Equal(["q"], Names(cache.Route(host, custom, key, null)));
        host.DeleteExchange(custom, ifUnused: false);
        var gone = Assert.Throws<ProtocolViolationException>(() => cache.Route(host, custom, key, null));
        Assert.Equal(ReplyCodes.NotFound, gone.ReplyCode);

        // The default exchange: a queue declared after a miss is found by the next publish.
        string direct = "later";
        Assert.Empty(cache.Route(host, "", direct, null));
        host.DeclareQueue(new QueueDeclare { Queue = direct }, 1);
        Assert.Equal(["later"], Names(cache.Route(host, "", direct, null)));
    }

    [Fact]
    public void An_exclusive_queue_removed_with_its_connection_is_seen_too()
    {
        var host = new VirtualHost("/");
        host.DeclareQueue(new QueueDeclare { Queue = "mine", Exclusive = true }, connectionId: 7);
        var cache = new RouteCache();
        string key = "mine";
        Assert.Equal(["mine"], Names(cache.Route(host, "", key, null)));
        host.RemoveExclusiveQueues(7);
        Assert.Empty(cache.Route(host, "", key, null));
    }

    [Fact]
    public void Other_headers_or_another_virtual_host_are_routed_not_looked_up()
    {
        var host = new VirtualHost("/");
        host.DeclareQueue(new QueueDeclare { Queue = "q" }, 1);
        var match = new FieldTable
        {
            ["x-match"] = FieldValue.LongString("all"),
            ["kind"] = FieldValue.LongString("a"),
        };
        host.Bind("amq.headers", "q", false, "", match, unbind: false);
        var cache = new RouteCache();
        string exchange = "amq.headers",
            key = "";
        var a = new FieldTable { ["kind"] = FieldValue.LongString("a") };
        var b = new FieldTable { ["kind"] = FieldValue.LongString("b") };
        Assert.Equal(["q"], Names(cache.Route(host, exchange, key, a)));
        Assert.Empty(cache.Route(host, exchange, key, b));
        Assert.Equal(["q"], Names(cache.Route(host, exchange, key, a)));

        var other = new VirtualHost("other");
        Assert.Empty(cache.Route(other, exchange, key, a));
    }
}
