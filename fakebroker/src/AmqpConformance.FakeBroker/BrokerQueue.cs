using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker;

/// <summary>A queue of the fake broker. Tests read it through the public members (each takes the virtual host's
/// lock and returns a snapshot); the broker mutates it only under that lock.</summary>
public sealed class BrokerQueue
{
    private readonly LinkedList<QueuedMessage> _ready = new();
    private readonly List<Consumer> _consumers = [];
    private int _cursor;
    private long _enqueued;

    internal BrokerQueue(VirtualHost host, string name, bool durable, bool exclusive, bool autoDelete, FieldTable arguments, long? exclusiveOwner)
    {
        Host = host;
        Name = name;
        Durable = durable;
        Exclusive = exclusive;
        AutoDelete = autoDelete;
        Arguments = arguments;
        ExclusiveOwner = exclusiveOwner;
    }

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
    public int MessageCount { get { lock (Host.Gate) return _ready.Count; } }

    /// <summary>Active consumers.</summary>
    public int ConsumerCount { get { lock (Host.Gate) return _consumers.Count; } }

    /// <summary>Messages ever routed to this queue.</summary>
    public long EnqueuedCount { get { lock (Host.Gate) return _enqueued; } }

    /// <summary>A snapshot of the ready messages, oldest first.</summary>
    public IReadOnlyList<DeliveredMessage> ReadyMessages() { lock (Host.Gate) return [.. _ready.Select(q => q.Message)]; }

    // ---- mutation, all under Host.Gate ----

    internal int ReadyCount => _ready.Count;

    internal int ConsumersCount => _consumers.Count;

    internal IReadOnlyList<Consumer> Consumers => _consumers;

    internal void Enqueue(DeliveredMessage message)
    {
        _enqueued++;
        _ready.AddLast(new QueuedMessage(message, Redelivered: false));
    }

    /// <summary>Puts a returned delivery back at the head of the queue, marked redelivered.</summary>
    internal void Requeue(QueuedMessage entry) => _ready.AddFirst(entry with { Redelivered = true });

    internal QueuedMessage? TryDequeue()
    {
        var first = _ready.First;
        if (first is null) return null;
        _ready.RemoveFirst();
        return first.Value;
    }

    internal int Purge()
    {
        int n = _ready.Count;
        _ready.Clear();
        return n;
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
            if (chosen is null) return;
            var entry = TryDequeue()!;
            chosen.Channel.Deliver(chosen, entry, this);
        }
    }
}
