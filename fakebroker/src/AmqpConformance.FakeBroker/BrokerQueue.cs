using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker;

/// <summary>A queue of the fake broker. Tests read it through the public members (each takes the virtual host's
/// lock and returns a snapshot); the broker mutates it only under that lock.</summary>
public sealed class BrokerQueue
{
    /// <summary>Where the queues of every broker in the process take the chunks for their ready messages and give them
    /// back when deleted (<see cref="VirtualHost.QueueChunks"/> unless a test gives a host its own): at most 256 free
    /// chunks (6 MiB) kept.</summary>
    internal static DequeChunkPool<QueuedMessage> SharedChunks { get; } =
        new(Deque<QueuedMessage>.DefaultChunkLength, limit: 256);

    private readonly Deque<QueuedMessage> _ready;
    private readonly List<Consumer> _consumers = [];
    private int _cursor;
    private long _enqueued;

    internal BrokerQueue(
        VirtualHost host,
        string name,
        bool durable,
        bool exclusive,
        bool autoDelete,
        FieldTable arguments,
        long? exclusiveOwner
    )
    {
        Host = host;
        _ready = new Deque<QueuedMessage>(host.QueueChunks);
        Name = name;
        Durable = durable;
        Exclusive = exclusive;
        AutoDelete = autoDelete;
        Arguments = arguments;
        ExclusiveOwner = exclusiveOwner;
        AsRoute = [this];
        NameAsRoutedTo = Array.AsReadOnly([name]);
    }

    /// <summary>This queue as a routing result of one queue (the default exchange's), made once: routing a message
    /// there allocates no list.</summary>
    internal IReadOnlyList<BrokerQueue> AsRoute { get; }

    /// <summary><see cref="DeliveredMessage.RoutedTo"/> of a message routed here alone, made once and read-only, so
    /// messages can share it.</summary>
    internal IReadOnlyList<string> NameAsRoutedTo { get; }

    internal VirtualHost Host { get; }

    /// <summary>The queue name.</summary>
    public string Name { get; }

    /// <summary>The virtual host it lives in.</summary>
    public string VirtualHost => Host.Name;

    /// <summary>The durable flag it was declared with (the fake broker keeps nothing on disk either way).</summary>
    public bool Durable { get; }

    /// <summary>Exclusive to the declaring connection; deleted when that connection ends.</summary>
    public bool Exclusive { get; }

    /// <summary>Deleted when its last consumer is cancelled.</summary>
    public bool AutoDelete { get; }

    /// <summary>The arguments it was declared with.</summary>
    public FieldTable Arguments { get; }

    internal long? ExclusiveOwner { get; }

    internal bool HadConsumer { get; private set; }

    internal bool Deleted { get; set; }

    /// <summary>Messages ready for delivery (not counting deliveries waiting for an ack).</summary>
    public int MessageCount
    {
        get
        {
            lock (Host.Gate)
                return _ready.Count;
        }
    }

    /// <summary>Active consumers.</summary>
    public int ConsumerCount
    {
        get
        {
            lock (Host.Gate)
                return _consumers.Count;
        }
    }

    /// <summary>Messages ever routed to this queue.</summary>
    public long EnqueuedCount
    {
        get
        {
            lock (Host.Gate)
                return _enqueued;
        }
    }

    /// <summary>A snapshot of the ready messages, oldest first. The messages (and their bodies) stay valid for as long
    /// as the caller holds them, whatever happens to the queue afterwards: their body arrays are never reused. Each
    /// call builds new instances (equal by value to the last call's) unless the messages were kept in
    /// <see cref="BrokerConnection.Published"/>.</summary>
    public IReadOnlyList<DeliveredMessage> ReadyMessages()
    {
        lock (Host.Gate)
        {
            var messages = new DeliveredMessage[_ready.Count];
            int i = 0;
            foreach (var entry in _ready)
            {
                entry.Storage?.Escape();
                messages[i++] = entry.Message;
            }
            return messages;
        }
    }

    // ---- mutation, all under Host.Gate ----

    internal int ReadyCount => _ready.Count;

    internal int ConsumersCount => _consumers.Count;

    internal IReadOnlyList<Consumer> Consumers => _consumers;

    /// <summary>Adds a message of <paramref name="parts"/> at the tail (<paramref name="shared"/>: its instance, if
    /// one was made); <paramref name="storage"/>, the pooled array behind its body if any, gets this queue as one more
    /// holder.</summary>
    internal void Enqueue(in MessageParts parts, DeliveredMessage? shared, PooledBody? storage)
    {
        _enqueued++;
        storage?.Hold();
        _ready.AddLast(new QueuedMessage(parts, shared, Redelivered: false, storage));
    }

    /// <summary>Puts a returned delivery back at the head of the queue, marked redelivered.</summary>
    internal void Requeue(QueuedMessage entry) => _ready.AddFirst(entry with { Redelivered = true });

    /// <summary>Takes the head message out for delivery (to a consumer or basic.get): its body escapes the pool, since
    /// the send loop and the client will read it.</summary>
    internal bool TryDequeue(out QueuedMessage entry)
    {
        if (!_ready.TryRemoveFirst(out entry))
            return false;
        entry.Storage?.Escape();
        return true;
    }

    /// <summary>Drops every ready message unread (queue.purge, or the queue being deleted); bodies nobody else holds go
    /// back to the pool. Returns how many were dropped.</summary>
    internal int Purge()
    {
        int n = _ready.Count;
        foreach (var entry in _ready)
            entry.Storage?.Release();
        _ready.Clear();
        return n;
    }

    /// <summary>For a queue being deleted: drops every ready message unread, as <see cref="Purge"/> does, and gives
    /// every chunk that held them to its host's pool (<see cref="VirtualHost.QueueChunks"/>), for the next queue to
    /// fill.</summary>
    internal void PurgeForDeletion()
    {
        foreach (var entry in _ready)
            entry.Storage?.Release();
        _ready.ReleaseChunks();
    }

    internal void AddConsumer(Consumer consumer)
    {
        _consumers.Add(consumer);
        HadConsumer = true;
    }

    internal void RemoveConsumer(Consumer consumer) => _consumers.Remove(consumer);

    /// <summary>Hands ready messages to consumers, round robin, while one has room under its prefetch.</summary>
    internal void Dispatch()
    {
        while (_ready.Count > 0 && _consumers.Count > 0)
        {
            Consumer? chosen = null;
            for (int i = 0; i < _consumers.Count; i++)
            {
                var candidate = _consumers[(_cursor + i) % _consumers.Count];
                if (candidate.CanTakeDelivery)
                {
                    chosen = candidate;
                    _cursor = (_cursor + i + 1) % _consumers.Count;
                    break;
                }
            }
            if (chosen is null)
                return;
            TryDequeue(out var entry);
            chosen.Channel.Deliver(chosen, entry, this);
        }
    }
}
