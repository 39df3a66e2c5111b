using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker;

/// <summary>The queues one connection's last routed publish went to, kept for the next publish to the same place: a
/// publisher sends publish after publish with the same exchange, routing key and headers (the very same objects, since
/// <see cref="RepeatedPayload{T}"/> shares a repeated publish's and header's decoding), and routing them again took the
/// virtual host's lock and two string look-ups per message. Single-threaded: the connection's receive loop.</summary>
/// <remarks>Sound because <see cref="VirtualHost.Route"/> reads nothing but the exchanges, queues and bindings, and
/// <see cref="VirtualHost.TopologyVersion"/> changes with every change to them: a cached answer is given only while the
/// version is the one read before it was computed, so it is what routing would answer at that moment. A topology change
/// another connection makes at the same time is then ordered after this publish, as if the publish had been routed just
/// before it.</remarks>
internal sealed class RouteCache
{
    private string? _exchange;
    private string? _routingKey;
    private FieldTable? _headers;
    private VirtualHost? _host;
    private long _version = -1;
    private IReadOnlyList<BrokerQueue> _queues = [];

    /// <summary>What <see cref="VirtualHost.Route"/> answers for these arguments (and throws what it throws); from the
    /// cache when the same exchange, routing key and headers objects were routed last on an unchanged
    /// topology.</summary>
    public IReadOnlyList<BrokerQueue> Route(VirtualHost host, string exchange, string routingKey, FieldTable? headers)
    {
        long version = host.TopologyVersion;
        if (
            version == _version
            && ReferenceEquals(host, _host)
            && ReferenceEquals(exchange, _exchange)
            && ReferenceEquals(routingKey, _routingKey)
            && ReferenceEquals(headers, _headers)
        )
            return _queues;
        var queues = host.Route(exchange, routingKey, headers);
        (_host, _exchange, _routingKey, _headers, _version, _queues) = (
            host,
            exchange,
            routingKey,
            headers,
            version,
            queues
        );
        return queues;
    }
}
