// Method records of the AMQP 0-9-1 "basic" class (id 60), argument lists as in RabbitMQ's
// amqp-rabbitmq-0.9.1 specification. Kept in one file per class so a reader sees the class at once.
namespace AmqpConformance.Protocol;

/// <summary>Sets the prefetch window.</summary>
[AmqpMethod(60, 10, "basic.qos")]
public sealed partial record BasicQos : AmqpMethod
{
    /// <summary>Prefetch window in octets (0 = no limit). Wire type: long.</summary>
    public uint PrefetchSize { get; init; }

    /// <summary>Prefetch window in messages (0 = no limit). Wire type: short.</summary>
    public ushort PrefetchCount { get; init; }

    /// <summary>Apply to the whole connection (RabbitMQ: to all consumers on the channel) rather than per consumer.
    /// Wire type: bit.</summary>
    public bool Global { get; init; }
}

/// <summary>Confirms basic.qos.</summary>
[AmqpMethod(60, 11, "basic.qos-ok")]
public sealed partial record BasicQosOk : AmqpMethod;

/// <summary>Starts a consumer on a queue.</summary>
[AmqpMethod(60, 20, "basic.consume")]
public sealed partial record BasicConsume : AmqpMethod
{
    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Queue name. Wire type: shortstr.</summary>
    public string Queue { get; init; } = "";

    /// <summary>Consumer tag (empty asks the server to generate one). Wire type: shortstr.</summary>
    public string ConsumerTag { get; init; } = "";

    /// <summary>Do not deliver messages this connection published. Wire type: bit.</summary>
    public bool NoLocal { get; init; }

    /// <summary>Messages count as acknowledged once delivered. Wire type: bit.</summary>
    public bool NoAck { get; init; }

    /// <summary>Exclusive to this connection (queue) or consumer. Wire type: bit.</summary>
    public bool Exclusive { get; init; }

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    [SpecName("nowait")]
    public bool NoWait { get; init; }

    /// <summary>Extension arguments (x-*). Wire type: table.</summary>
    public FieldTable Arguments { get; init; } = FieldTable.Empty;
}

/// <summary>Confirms basic.consume with the consumer tag.</summary>
[AmqpMethod(60, 21, "basic.consume-ok")]
public sealed partial record BasicConsumeOk : AmqpMethod
{
    /// <summary>Consumer tag (empty asks the server to generate one). Wire type: shortstr.</summary>
    public string ConsumerTag { get; init; } = "";
}

/// <summary>Cancels a consumer (sent by the server too, when the queue goes away).</summary>
[AmqpMethod(60, 30, "basic.cancel")]
public sealed partial record BasicCancel : AmqpMethod
{
    /// <summary>Consumer tag (empty asks the server to generate one). Wire type: shortstr.</summary>
    public string ConsumerTag { get; init; } = "";

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    [SpecName("nowait")]
    public bool NoWait { get; init; }
}

/// <summary>Confirms basic.cancel.</summary>
[AmqpMethod(60, 31, "basic.cancel-ok")]
public sealed partial record BasicCancelOk : AmqpMethod
{
    /// <summary>Consumer tag (empty asks the server to generate one). Wire type: shortstr.</summary>
    public string ConsumerTag { get; init; } = "";
}

/// <summary>Publishes a message; a content header and body frames follow.</summary>
[AmqpMethod(60, 40, "basic.publish", HasContent = true)]
public sealed partial record BasicPublish : AmqpMethod
{
    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Exchange name ("" is the default exchange). Wire type: shortstr.</summary>
    public string Exchange { get; init; } = "";

    /// <summary>Routing key. Wire type: shortstr.</summary>
    public string RoutingKey { get; init; } = "";

    /// <summary>Return the message (basic.return) if no queue gets it. Wire type: bit.</summary>
    public bool Mandatory { get; init; }

    /// <summary>Return the message if no consumer can take it at once (RabbitMQ refuses this flag). Wire type:
    /// bit.</summary>
    public bool Immediate { get; init; }
}

/// <summary>Returns an unroutable mandatory message to its publisher; content follows.</summary>
[AmqpMethod(60, 50, "basic.return", HasContent = true)]
public sealed partial record BasicReturn : AmqpMethod
{
    /// <summary>Reply code (e.g. 200 for a normal close, 404 not found, 406 precondition failed). Wire type:
    /// short.</summary>
    public ushort ReplyCode { get; init; }

    /// <summary>Human-readable reason. Wire type: shortstr.</summary>
    public string ReplyText { get; init; } = "";

    /// <summary>Exchange name ("" is the default exchange). Wire type: shortstr.</summary>
    public string Exchange { get; init; } = "";

    /// <summary>Routing key. Wire type: shortstr.</summary>
    public string RoutingKey { get; init; } = "";
}

/// <summary>Delivers a message to a consumer; content follows.</summary>
[AmqpMethod(60, 60, "basic.deliver", HasContent = true)]
public sealed partial record BasicDeliver : AmqpMethod
{
    /// <summary>Consumer tag (empty asks the server to generate one). Wire type: shortstr.</summary>
    public string ConsumerTag { get; init; } = "";

    /// <summary>Delivery tag (or publish sequence number, for confirms). Wire type: longlong.</summary>
    public ulong DeliveryTag { get; init; }

    /// <summary>The message was delivered before. Wire type: bit.</summary>
    public bool Redelivered { get; init; }

    /// <summary>Exchange name ("" is the default exchange). Wire type: shortstr.</summary>
    public string Exchange { get; init; } = "";

    /// <summary>Routing key. Wire type: shortstr.</summary>
    public string RoutingKey { get; init; } = "";
}

/// <summary>Fetches one message from a queue.</summary>
[AmqpMethod(60, 70, "basic.get")]
public sealed partial record BasicGet : AmqpMethod
{
    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Queue name. Wire type: shortstr.</summary>
    public string Queue { get; init; } = "";

    /// <summary>Messages count as acknowledged once delivered. Wire type: bit.</summary>
    public bool NoAck { get; init; }
}

/// <summary>Answers basic.get with a message; content follows.</summary>
[AmqpMethod(60, 71, "basic.get-ok", HasContent = true)]
public sealed partial record BasicGetOk : AmqpMethod
{
    /// <summary>Delivery tag (or publish sequence number, for confirms). Wire type: longlong.</summary>
    public ulong DeliveryTag { get; init; }

    /// <summary>The message was delivered before. Wire type: bit.</summary>
    public bool Redelivered { get; init; }

    /// <summary>Exchange name ("" is the default exchange). Wire type: shortstr.</summary>
    public string Exchange { get; init; } = "";

    /// <summary>Routing key. Wire type: shortstr.</summary>
    public string RoutingKey { get; init; } = "";

    /// <summary>Number of messages. Wire type: long.</summary>
    public uint MessageCount { get; init; }
}

/// <summary>Answers basic.get when the queue is empty.</summary>
[AmqpMethod(60, 72, "basic.get-empty")]
public sealed partial record BasicGetEmpty : AmqpMethod
{
    /// <summary>Reserved (was cluster-id); empty. Wire type: shortstr.</summary>
    public string ClusterId { get; init; } = "";
}

/// <summary>Acknowledges one or (with Multiple) all messages up to a delivery tag; from the server, confirms
/// publishes.</summary>
[AmqpMethod(60, 80, "basic.ack")]
public sealed partial record BasicAck : AmqpMethod
{
    /// <summary>Delivery tag (or publish sequence number, for confirms). Wire type: longlong.</summary>
    public ulong DeliveryTag { get; init; }

    /// <summary>Applies to all tags up to and including DeliveryTag. Wire type: bit.</summary>
    public bool Multiple { get; init; }
}

/// <summary>Rejects one message.</summary>
[AmqpMethod(60, 90, "basic.reject")]
public sealed partial record BasicReject : AmqpMethod
{
    /// <summary>Delivery tag (or publish sequence number, for confirms). Wire type: longlong.</summary>
    public ulong DeliveryTag { get; init; }

    /// <summary>Requeue the message(s) rather than discard or dead-letter them. Wire type: bit.</summary>
    public bool Requeue { get; init; } = true;
}

/// <summary>Deprecated: redelivers unacknowledged messages, without a reply.</summary>
[AmqpMethod(60, 100, "basic.recover-async")]
public sealed partial record BasicRecoverAsync : AmqpMethod
{
    /// <summary>Requeue the message(s) rather than discard or dead-letter them. Wire type: bit.</summary>
    public bool Requeue { get; init; }
}

/// <summary>Redelivers unacknowledged messages.</summary>
[AmqpMethod(60, 110, "basic.recover")]
public sealed partial record BasicRecover : AmqpMethod
{
    /// <summary>Requeue the message(s) rather than discard or dead-letter them. Wire type: bit.</summary>
    public bool Requeue { get; init; }
}

/// <summary>Confirms basic.recover.</summary>
[AmqpMethod(60, 111, "basic.recover-ok")]
public sealed partial record BasicRecoverOk : AmqpMethod;

/// <summary>RabbitMQ extension: negatively acknowledges one or many messages; from the server, nacks
/// publishes.</summary>
[AmqpMethod(60, 120, "basic.nack")]
public sealed partial record BasicNack : AmqpMethod
{
    /// <summary>Delivery tag (or publish sequence number, for confirms). Wire type: longlong.</summary>
    public ulong DeliveryTag { get; init; }

    /// <summary>Applies to all tags up to and including DeliveryTag. Wire type: bit.</summary>
    public bool Multiple { get; init; }

    /// <summary>Requeue the message(s) rather than discard or dead-letter them. Wire type: bit.</summary>
    public bool Requeue { get; init; } = true;
}
