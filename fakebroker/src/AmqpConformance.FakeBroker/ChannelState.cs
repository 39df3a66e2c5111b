using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker;

/// <summary>One open channel of a connection: content assembly (touched only by the connection's loop) and
/// delivery state (delivery tags, unacked deliveries, consumers, prefetch; touched only under the virtual
/// host's lock, because other connections' publishes deliver to it).</summary>
internal sealed class ChannelState(BrokerConnection owner, ushort number)
{
    public BrokerConnection Owner { get; } = owner;

    public ushort Number { get; } = number;

    /// <summary>The broker sent channel.close and waits for close-ok: everything else on it is dropped.</summary>
    public bool Closing { get; set; }

    /// <summary>Closed for good (close-ok exchanged, or the connection ended).</summary>
    public bool Closed { get; set; }

    public bool IsUsable => !Closing && !Closed && !Owner.IsClosing;

    public bool FlowActive { get; set; } = true;

    public bool ConfirmMode { get; set; }

    /// <summary>The confirm sequence number the next publish gets (1, 2, 3, ... once in confirm mode).</summary>
    public ulong NextConfirmSequence { get; set; } = 1;

    /// <summary>Confirms due and not yet sent: the highest sequence number, and how many.</summary>
    public ulong PendingConfirmUpTo { get; set; }

    public int PendingConfirmCount { get; set; }

    /// <summary>The origin of the last message published on this channel, for the next one to share when it agrees
    /// (<see cref="PublishOrigin.Matches"/>).</summary>
    public PublishOrigin? LastOrigin { get; set; }

    /// <summary>The command being assembled, if any.</summary>
    public PendingContent? Content { get; set; }

    /// <summary>A completed command's assembler, kept to assemble the next one
    /// (<see cref="PendingContent.Start"/>).</summary>
    public PendingContent? SpareContent { get; set; }

    // ---- under the virtual host's lock ----

    /// <summary>basic.qos global=true: limit for the whole channel; 0 = none.</summary>
    public ushort PrefetchCount { get; set; }

    /// <summary>basic.qos global=false: limit given to consumers created from now on; 0 = none.</summary>
    public ushort ConsumerPrefetch { get; set; }

    public ulong LastDeliveryTag { get; set; }

    public SortedDictionary<ulong, UnackedDelivery> Unacked { get; } = [];

    public Dictionary<string, Consumer> Consumers { get; } = new(StringComparer.Ordinal);

    /// <summary>Sends one message to <paramref name="consumer"/> (called by the queue's dispatch, under the
    /// lock).</summary>
    public void Deliver(Consumer consumer, QueuedMessage entry, BrokerQueue queue)
    {
        ulong tag = ++LastDeliveryTag;
        if (!consumer.NoAck)
        {
            Unacked[tag] = new UnackedDelivery(entry, queue, consumer);
            consumer.Unacked++;
        }
        Owner.SendContent(
            Number,
            new BasicDeliver
            {
                ConsumerTag = consumer.Tag,
                DeliveryTag = tag,
                Redelivered = entry.Redelivered,
                Exchange = entry.Parts.Origin.Exchange,
                RoutingKey = entry.Parts.Origin.RoutingKey,
            },
            entry.Parts
        );
    }

    /// <summary>Settles deliveries (ack, or nack/reject with or without requeue); throws 406 for an unknown tag.
    /// Returns the queues that may now dispatch more. Caller holds the lock.</summary>
    public HashSet<BrokerQueue> Settle(ulong deliveryTag, bool multiple, bool requeue, bool isAck)
    {
        var touched = new HashSet<BrokerQueue>();
        List<ulong> tags;
        if (multiple)
        {
            tags = deliveryTag == 0 ? [.. Unacked.Keys] : [.. Unacked.Keys.TakeWhile(t => t <= deliveryTag)];
            if (deliveryTag != 0 && tags.Count == 0)
                throw UnknownTag(deliveryTag);
        }
        else
        {
            if (!Unacked.ContainsKey(deliveryTag))
                throw UnknownTag(deliveryTag);
            tags = [deliveryTag];
        }
        foreach (var tag in tags)
        {
            var delivery = Unacked[tag];
            Unacked.Remove(tag);
            if (delivery.Consumer is { } c)
                c.Unacked--;
            if (!isAck && requeue && !delivery.Queue.Deleted)
                delivery.Queue.Requeue(delivery.Entry);
            touched.Add(delivery.Queue);
        }
        foreach (var consumer in Consumers.Values)
            touched.Add(consumer.Queue);
        return touched;
    }

    /// <summary>Cancels every consumer and requeues every unacked delivery (channel or connection closing).
    /// Caller holds the lock. Returns the queues to dispatch again.</summary>
    public HashSet<BrokerQueue> ReleaseAll()
    {
        var touched = new HashSet<BrokerQueue>();
        foreach (var consumer in Consumers.Values)
        {
            consumer.Queue.RemoveConsumer(consumer);
            touched.Add(consumer.Queue);
        }
        Consumers.Clear();
        foreach (var delivery in Unacked.Values.Reverse())
        {
            if (!delivery.Queue.Deleted)
                delivery.Queue.Requeue(delivery.Entry);
            touched.Add(delivery.Queue);
        }
        Unacked.Clear();
        return touched;
    }

    private static ProtocolViolationException UnknownTag(ulong tag) =>
        new(ReplyCodes.PreconditionFailed, "unknown-delivery-tag", $"unknown delivery tag {tag}", channelOnly: true);
}
