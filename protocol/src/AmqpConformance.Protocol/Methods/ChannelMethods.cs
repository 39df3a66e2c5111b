// Method records of the AMQP 0-9-1 "channel" class (id 20), argument lists as in RabbitMQ's
// amqp-rabbitmq-0.9.1 specification. Kept in one file per class so a reader sees the class at once.
namespace AmqpConformance.Protocol;

/// <summary>Opens a channel.</summary>
[AmqpMethod(20, 10, "channel.open")]
public sealed partial record ChannelOpen : AmqpMethod
{
    /// <summary>Reserved (was out-of-band); empty. Wire type: shortstr.</summary>
    public string OutOfBand { get; init; } = "";
}

/// <summary>Confirms channel.open.</summary>
[AmqpMethod(20, 11, "channel.open-ok")]
public sealed partial record ChannelOpenOk : AmqpMethod
{
    /// <summary>Reserved (was channel-id); empty. Wire type: longstr.</summary>
    [LongString]
    public string ChannelId { get; init; } = "";
}

/// <summary>Asks the peer to stop or restart sending content.</summary>
[AmqpMethod(20, 20, "channel.flow")]
public sealed partial record ChannelFlow : AmqpMethod
{
    /// <summary>True to start (or keep) sending content, false to stop. Wire type: bit.</summary>
    public bool Active { get; init; }
}

/// <summary>Confirms channel.flow.</summary>
[AmqpMethod(20, 21, "channel.flow-ok")]
public sealed partial record ChannelFlowOk : AmqpMethod
{
    /// <summary>True to start (or keep) sending content, false to stop. Wire type: bit.</summary>
    public bool Active { get; init; }
}

/// <summary>Closes a channel, naming the reply code and the method that failed (if any).</summary>
[AmqpMethod(20, 40, "channel.close")]
public sealed partial record ChannelClose : CloseMethod;

/// <summary>Confirms channel.close.</summary>
[AmqpMethod(20, 41, "channel.close-ok")]
public sealed partial record ChannelCloseOk : AmqpMethod;
