using System.Security.Cryptography;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker;

/// <summary>One virtual host: its exchanges, queues and bindings, routing, and dispatch to consumers.
/// Everything in it (and in its queues, consumers and the channels' delivery state) changes only under
/// <see cref="Gate"/>, so publishes and acks from different connections see one consistent state.</summary>
internal sealed class VirtualHost
{
    private readonly Dictionary<string, BrokerExchange> _exchanges = new(StringComparer.Ordinal);
    private readonly Dictionary<string, BrokerQueue> _queues = new(StringComparer.Ordinal);

    /// <summary>A virtual host named <paramref name="name"/>, its queues keeping their ready messages in chunks from
    /// <paramref name="queueChunks"/> (by default <see cref="BrokerQueue.SharedChunks"/>, the process's).</summary>
    public VirtualHost(string name, DequeChunkPool<QueuedMessage>? queueChunks = null)
    {
        Name = name;
        QueueChunks = queueChunks ?? BrokerQueue.SharedChunks;
        foreach (
            var (exchange, kind) in new[]
            {
                ("", ExchangeKind.Direct),
                ("amq.direct", ExchangeKind.Direct),
                ("amq.fanout", ExchangeKind.Fanout),
                ("amq.topic", ExchangeKind.Topic),
                ("amq.headers", ExchangeKind.Headers),
                ("amq.match", ExchangeKind.Headers),
            }
        )
            _exchanges[exchange] = new BrokerExchange(
                exchange,
                kind,
                durable: true,
                autoDelete: false,
                isInternal: false,
                FieldTable.Empty
            );
    }

    /// <summary>Where this host's queues take chunks for their ready messages, and give them back when deleted.</summary>
    internal DequeChunkPool<QueuedMessage> QueueChunks { get; }

    public string Name { get; }

    /// <summary>The lock for all routing and delivery state of this virtual host.</summary>
    public object Gate { get; } = new();

    private long _topologyVersion;

    /// <summary>Changes (under <see cref="Gate"/>) whenever something <see cref="Route"/> reads changes: an exchange or
    /// a queue declared or deleted, a binding added or removed. Read without the lock: while it stays the same, routing
    /// the same exchange, routing key and headers again gives the same queues (<see cref="RouteCache"/>).</summary>
    public long TopologyVersion => Volatile.Read(ref _topologyVersion);

    /// <summary>Notes a change of what routing reads. Caller holds <see cref="Gate"/>.</summary>
    private void TopologyChanged() => Volatile.Write(ref _topologyVersion, _topologyVersion + 1);

    public BrokerQueue? FindQueue(string name)
    {
        lock (Gate)
            return _queues.GetValueOrDefault(name);
    }

    public IReadOnlyList<BrokerQueue> Queues()
    {
        lock (Gate)
            return [.. _queues.Values];
    }

    // ---------------------------------------------------------------- exchanges

    public void DeclareExchange(ExchangeDeclare m)
    {
        lock (Gate)
        {
            if (m.Exchange.Length == 0)
                throw ChannelError(
                    ReplyCodes.AccessRefused,
                    "access-refused",
                    "operation not permitted on the default exchange"
                );
            if (_exchanges.TryGetValue(m.Exchange, out var existing))
            {
                if (!m.Passive && existing.Kind != BrokerExchange.ParseKind(m.Type))
                    throw ChannelError(
                        ReplyCodes.PreconditionFailed,
                        "inequivalent-arg",
                        $"inequivalent arg 'type' for exchange '{m.Exchange}' in vhost '{Name}': received '{m.Type}' but current is '{existing.Kind.ToString().ToLowerInvariant()}'"
                    );
                return;
            }
            if (m.Passive)
                throw NoExchange(m.Exchange);
            if (m.Exchange.StartsWith("amq.", StringComparison.Ordinal))
                throw ChannelError(
                    ReplyCodes.AccessRefused,
                    "access-refused",
                    $"exchange name '{m.Exchange}' contains reserved prefix 'amq.*'"
                );
            var kind = BrokerExchange.ParseKind(m.Type)
                ?? throw new ProtocolViolationException(
                    ReplyCodes.CommandInvalid,
                    "invalid-exchange-type",
                    $"unknown exchange type '{m.Type}'"
                );
            _exchanges[m.Exchange] = new BrokerExchange(
                m.Exchange,
                kind,
                m.Durable,
                m.AutoDelete,
                m.Internal,
                m.Arguments
            );
            TopologyChanged();
        }
    }

    public void DeleteExchange(string name, bool ifUnused)
    {
        lock (Gate)
        {
            if (name.Length == 0 || name.StartsWith("amq.", StringComparison.Ordinal))
                throw ChannelError(
                    ReplyCodes.AccessRefused,
                    "access-refused",
                    $"deletion of system exchange '{name}' in vhost '{Name}' not allowed"
                );
            if (!_exchanges.TryGetValue(name, out var exchange))
                return; // RabbitMQ 3.x: deleting a missing exchange succeeds
            if (ifUnused && exchange.Bindings.Count > 0)
                throw ChannelError(
                    ReplyCodes.PreconditionFailed,
                    "exchange-in-use",
                    $"exchange '{name}' in vhost '{Name}' in use"
                );
            _exchanges.Remove(name);
            foreach (var other in _exchanges.Values)
                other.Bindings.RemoveAll(b => b.DestinationIsExchange && b.Destination == name);
            TopologyChanged();
        }
    }

    public void Bind(
        string source,
        string destination,
        bool destinationIsExchange,
        string routingKey,
        FieldTable arguments,
        bool unbind
    )
    {
        lock (Gate)
        {
            if (source.Length == 0 || (destinationIsExchange && destination.Length == 0))
                throw ChannelError(
                    ReplyCodes.AccessRefused,
                    "access-refused",
                    "operation not permitted on the default exchange"
                );
            if (!_exchanges.TryGetValue(source, out var exchange))
                throw NoExchange(source);
            if (destinationIsExchange ? !_exchanges.ContainsKey(destination) : !_queues.ContainsKey(destination))
                throw destinationIsExchange ? NoExchange(destination) : NoQueue(destination);
            var binding = new Binding(destination, destinationIsExchange, routingKey, arguments);
            exchange.Bindings.RemoveAll(b =>
                b.Destination == destination
                && b.DestinationIsExchange == destinationIsExchange
                && b.RoutingKey == routingKey
                && b.Arguments.Equals(arguments)
            );
            if (!unbind)
                exchange.Bindings.Add(binding);
            TopologyChanged();
        }
    }

    // ---------------------------------------------------------------- queues

    public (string Name, uint MessageCount, uint ConsumerCount) DeclareQueue(QueueDeclare m, long connectionId)
    {
        lock (Gate)
        {
            string name = m.Queue;
            if (name.Length == 0)
            {
                if (m.Passive)
                    throw NoQueue(name);
                name =
                    "amq.gen-"
                    + Convert
                        .ToBase64String(RandomNumberGenerator.GetBytes(16))
                        .TrimEnd('=')
                        .Replace('+', '-')
                        .Replace('/', '_');
            }
            if (_queues.TryGetValue(name, out var existing))
            {
                if (existing.Exclusive && existing.ExclusiveOwner != connectionId)
                    throw ChannelError(
                        ReplyCodes.ResourceLocked,
                        "resource-locked",
                        $"cannot obtain exclusive access to locked queue '{name}' in vhost '{Name}'"
                    );
                if (!m.Passive && existing.Durable != m.Durable)
                    throw ChannelError(
                        ReplyCodes.PreconditionFailed,
                        "inequivalent-arg",
                        $"inequivalent arg 'durable' for queue '{name}' in vhost '{Name}': received '{m.Durable.ToString().ToLowerInvariant()}' but current is '{existing.Durable.ToString().ToLowerInvariant()}'"
                    );
                return (name, (uint)existing.ReadyCount, (uint)existing.ConsumersCount);
            }
            if (m.Passive)
                throw NoQueue(name);
            if (m.Queue.StartsWith("amq.", StringComparison.Ordinal))
                throw ChannelError(
                    ReplyCodes.AccessRefused,
                    "access-refused",
                    $"queue name '{m.Queue}' contains reserved prefix 'amq.*'"
                );
            _queues[name] = new BrokerQueue(
                this,
                name,
                m.Durable,
                m.Exclusive,
                m.AutoDelete,
                m.Arguments,
                m.Exclusive ? connectionId : null
            );
            TopologyChanged();
            return (name, 0, 0);
        }
    }

    public uint PurgeQueue(string name, long connectionId)
    {
        lock (Gate)
            return (uint)RequireQueue(name, connectionId).Purge();
    }

    public uint DeleteQueue(string name, bool ifUnused, bool ifEmpty, long connectionId)
    {
        lock (Gate)
        {
            if (!_queues.TryGetValue(name, out var queue))
                return 0; // RabbitMQ 3.x: deleting a missing queue succeeds
            CheckExclusive(queue, connectionId);
            if (ifUnused && queue.ConsumersCount > 0)
                throw ChannelError(
                    ReplyCodes.PreconditionFailed,
                    "queue-in-use",
                    $"queue '{name}' in vhost '{Name}' in use"
                );
            if (ifEmpty && queue.ReadyCount > 0)
                throw ChannelError(
                    ReplyCodes.PreconditionFailed,
                    "queue-not-empty",
                    $"queue '{name}' in vhost '{Name}' not empty"
                );
            uint count = (uint)queue.ReadyCount;
            RemoveQueue(queue);
            return count;
        }
    }

    /// <summary>Finds a queue for consume / get / purge, enforcing exclusivity. Caller holds
    /// <see cref="Gate"/>.</summary>
    public BrokerQueue RequireQueue(string name, long connectionId)
    {
        if (!_queues.TryGetValue(name, out var queue))
            throw NoQueue(name);
        CheckExclusive(queue, connectionId);
        return queue;
    }

    /// <summary>Deletes the exclusive queues of a connection that ended.</summary>
    public void RemoveExclusiveQueues(long connectionId)
    {
        lock (Gate)
            foreach (var queue in _queues.Values.Where(q => q.Exclusive && q.ExclusiveOwner == connectionId).ToList())
                RemoveQueue(queue);
    }

    /// <summary>Deletes an auto-delete queue whose last consumer went away. Caller holds <see cref="Gate"/>.</summary>
    public void MaybeAutoDelete(BrokerQueue queue)
    {
        if (queue.AutoDelete && queue.HadConsumer && queue.ConsumersCount == 0 && !queue.Deleted)
            RemoveQueue(queue);
    }

    /// <summary>Deletes a queue: its consumers are cancelled (each told with basic.cancel when its client announced
    /// consumer_cancel_notify, as RabbitMQ does), its bindings go. Caller holds <see cref="Gate"/>.</summary>
    private void RemoveQueue(BrokerQueue queue)
    {
        queue.Deleted = true;
        queue.PurgeForDeletion(); // its ready messages go with it: their pooled bodies and their chunks can be reused
        _queues.Remove(queue.Name);
        foreach (var consumer in queue.Consumers.ToList())
        {
            queue.RemoveConsumer(consumer);
            if (consumer.Channel.Consumers.Remove(consumer.Tag))
                consumer.Channel.Owner.NotifyConsumerCancelled(consumer.Channel, consumer.Tag);
        }
        foreach (var exchange in _exchanges.Values)
            exchange.Bindings.RemoveAll(b => !b.DestinationIsExchange && b.Destination == queue.Name);
        TopologyChanged();
    }

    private void CheckExclusive(BrokerQueue queue, long connectionId)
    {
        if (queue.Exclusive && queue.ExclusiveOwner != connectionId)
            throw ChannelError(
                ReplyCodes.ResourceLocked,
                "resource-locked",
                $"cannot obtain exclusive access to locked queue '{queue.Name}' in vhost '{Name}'"
            );
    }

    // ---------------------------------------------------------------- routing

    /// <summary>Routes a message and enqueues it; returns the queues it reached (empty when unroutable).
    /// Throws a channel error (404) when the exchange does not exist.</summary>
    public IReadOnlyList<BrokerQueue> Route(string exchangeName, string routingKey, FieldTable? headers)
    {
        lock (Gate)
        {
            if (!_exchanges.TryGetValue(exchangeName, out var exchange))
                throw NoExchange(exchangeName);
            // The default exchange routes to at most one queue: no list to make (nothing at all when unroutable).
            if (exchangeName.Length == 0)
                return _queues.TryGetValue(routingKey, out var direct) ? direct.AsRoute : [];
            var result = new List<BrokerQueue>();
            var visited = new HashSet<string>(StringComparer.Ordinal);
            Collect(exchange, routingKey, headers, result, visited);
            return result;
        }
    }

    private void Collect(
        BrokerExchange exchange,
        string routingKey,
        FieldTable? headers,
        List<BrokerQueue> result,
        HashSet<string> visited
    )
    {
        if (!visited.Add(exchange.Name))
            return;
        foreach (var binding in exchange.Bindings)
        {
            if (!exchange.Matches(binding, routingKey, headers))
                continue;
            if (binding.DestinationIsExchange)
            {
                if (_exchanges.TryGetValue(binding.Destination, out var next))
                    Collect(next, routingKey, headers, result, visited);
            }
            else if (_queues.TryGetValue(binding.Destination, out var queue) && !result.Contains(queue))
            {
                result.Add(queue);
            }
        }
    }

    /// <summary>Puts <paramref name="message"/> on <paramref name="queues"/> and dispatches to their consumers.
    /// <paramref name="storage"/> is the pooled array behind its body, if any: this call takes over the caller's
    /// ownership, and the array goes back to the pool once no queue holds the message unread (at once if every queue
    /// was deleted meanwhile).</summary>
    public void Enqueue(DeliveredMessage message, IReadOnlyList<BrokerQueue> queues, PooledBody? storage = null) =>
        Enqueue(message.Parts, message, queues, storage);

    /// <summary>As <see cref="Enqueue(DeliveredMessage, IReadOnlyList{BrokerQueue}, PooledBody?)"/>, for a message of
    /// <paramref name="parts"/> of which no instance was made (<paramref name="shared"/> null), or whose instance every
    /// queue should hand out.</summary>
    internal void Enqueue(
        in MessageParts parts,
        DeliveredMessage? shared,
        IReadOnlyList<BrokerQueue> queues,
        PooledBody? storage
    )
    {
        lock (Gate)
        {
            storage?.Hold(); // the router's own hold, so a delivery to the first queue cannot end it early
            for (int i = 0; i < queues.Count; i++) // by index: a foreach over the interface would box an enumerator per message
            {
                var queue = queues[i];
                if (queue.Deleted)
                    continue;
                queue.Enqueue(parts, shared, storage);
                queue.Dispatch();
            }
            storage?.Release();
        }
    }

    private ProtocolViolationException NoExchange(string name) =>
        ChannelError(ReplyCodes.NotFound, "not-found", $"no exchange '{name}' in vhost '{Name}'");

    private ProtocolViolationException NoQueue(string name) =>
        ChannelError(ReplyCodes.NotFound, "not-found", $"no queue '{name}' in vhost '{Name}'");

    private static ProtocolViolationException ChannelError(ushort code, string rule, string text) =>
        new(code, rule, text, channelOnly: true);
}
