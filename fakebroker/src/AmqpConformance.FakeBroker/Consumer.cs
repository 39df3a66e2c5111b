namespace AmqpConformance.FakeBroker;

/// <summary>A basic.consume subscription. Mutated only under the virtual host's lock.</summary>
internal sealed class Consumer(
    string tag,
    BrokerQueue queue,
    ChannelState channel,
    bool noAck,
    bool exclusive,
    ushort prefetchCount
)
{
    public string Tag { get; } = tag;
    public BrokerQueue Queue { get; } = queue;
    public ChannelState Channel { get; } = channel;
    public bool NoAck { get; } = noAck;
    public bool Exclusive { get; } = exclusive;

    /// <summary>Per-consumer prefetch (basic.qos global=false at consume time); 0 = unlimited.</summary>
    public ushort PrefetchCount { get; } = prefetchCount;

    /// <summary>Deliveries to this consumer not yet acknowledged.</summary>
    public int Unacked { get; set; }

    /// <summary>Whether one more delivery may go out under this consumer's and its channel's prefetch.</summary>
    public bool CanTakeDelivery =>
        Channel.IsUsable
        && Channel.FlowActive
        && (
            NoAck
            || (
                (PrefetchCount == 0 || Unacked < PrefetchCount)
                && (Channel.PrefetchCount == 0 || Channel.Unacked.Count < Channel.PrefetchCount)
            )
        );
}
