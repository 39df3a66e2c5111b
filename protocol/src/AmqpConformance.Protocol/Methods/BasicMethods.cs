// Method records of the AMQP 0-9-1 "basic" class (id 60), argument lists as in RabbitMQ's
// amqp-rabbitmq-0.9.1 specification. Kept in one file per class so a reader sees the class at once.
namespace AmqpConformance.Protocol;

/// <summary><c>basic.qos</c> (60, 10). Sets the prefetch window.</summary>
public sealed record BasicQos : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 10 (qos).</summary>
    public const ushort MethodIdValue = 10;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.qos";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Prefetch window in octets (0 = no limit). Wire type: long.</summary>
    public uint PrefetchSize { get; init; }

    /// <summary>Prefetch window in messages (0 = no limit). Wire type: short.</summary>
    public ushort PrefetchCount { get; init; }

    /// <summary>Apply to the whole connection (RabbitMQ: to all consumers on the channel) rather than per consumer. Wire type: bit.</summary>
    public bool Global { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteLong(PrefetchSize);
        writer.WriteShort(PrefetchCount);
        writer.WriteBit(Global);
        writer.Flush();
    }

    internal static BasicQos Read(ref AmqpReader reader) => new()
    {
        PrefetchSize = reader.ReadLong("prefetch-size"),
        PrefetchCount = reader.ReadShort("prefetch-count"),
        Global = reader.ReadBit("global"),
    };
}

/// <summary><c>basic.qos-ok</c> (60, 11). Confirms basic.qos.</summary>
public sealed record BasicQosOk : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 11 (qos-ok).</summary>
    public const ushort MethodIdValue = 11;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.qos-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static BasicQosOk Read(ref AmqpReader reader) => new();
}

/// <summary><c>basic.consume</c> (60, 20). Starts a consumer on a queue.</summary>
public sealed record BasicConsume : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 20 (consume).</summary>
    public const ushort MethodIdValue = 20;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.consume";
    /// <inheritdoc/>
    public override bool HasContent => false;

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
    public bool NoWait { get; init; }

    /// <summary>Extension arguments (x-*). Wire type: table.</summary>
    public FieldTable Arguments { get; init; } = FieldTable.Empty;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(Ticket);
        writer.WriteShortString(Queue);
        writer.WriteShortString(ConsumerTag);
        writer.WriteBit(NoLocal);
        writer.WriteBit(NoAck);
        writer.WriteBit(Exclusive);
        writer.WriteBit(NoWait);
        writer.WriteFieldTable(Arguments);
        writer.Flush();
    }

    internal static BasicConsume Read(ref AmqpReader reader) => new()
    {
        Ticket = reader.ReadShort("ticket"),
        Queue = reader.ReadShortString("queue"),
        ConsumerTag = reader.ReadShortString("consumer-tag"),
        NoLocal = reader.ReadBit("no-local"),
        NoAck = reader.ReadBit("no-ack"),
        Exclusive = reader.ReadBit("exclusive"),
        NoWait = reader.ReadBit("nowait"),
        Arguments = reader.ReadFieldTable("arguments"),
    };
}

/// <summary><c>basic.consume-ok</c> (60, 21). Confirms basic.consume with the consumer tag.</summary>
public sealed record BasicConsumeOk : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 21 (consume-ok).</summary>
    public const ushort MethodIdValue = 21;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.consume-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Consumer tag (empty asks the server to generate one). Wire type: shortstr.</summary>
    public string ConsumerTag { get; init; } = "";

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShortString(ConsumerTag);
        writer.Flush();
    }

    internal static BasicConsumeOk Read(ref AmqpReader reader) => new()
    {
        ConsumerTag = reader.ReadShortString("consumer-tag"),
    };
}

/// <summary><c>basic.cancel</c> (60, 30). Cancels a consumer (sent by the server too, when the queue goes away).</summary>
public sealed record BasicCancel : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 30 (cancel).</summary>
    public const ushort MethodIdValue = 30;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.cancel";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Consumer tag (empty asks the server to generate one). Wire type: shortstr.</summary>
    public string ConsumerTag { get; init; } = "";

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    public bool NoWait { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShortString(ConsumerTag);
        writer.WriteBit(NoWait);
        writer.Flush();
    }

    internal static BasicCancel Read(ref AmqpReader reader) => new()
    {
        ConsumerTag = reader.ReadShortString("consumer-tag"),
        NoWait = reader.ReadBit("nowait"),
    };
}

/// <summary><c>basic.cancel-ok</c> (60, 31). Confirms basic.cancel.</summary>
public sealed record BasicCancelOk : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 31 (cancel-ok).</summary>
    public const ushort MethodIdValue = 31;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.cancel-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Consumer tag (empty asks the server to generate one). Wire type: shortstr.</summary>
    public string ConsumerTag { get; init; } = "";

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShortString(ConsumerTag);
        writer.Flush();
    }

    internal static BasicCancelOk Read(ref AmqpReader reader) => new()
    {
        ConsumerTag = reader.ReadShortString("consumer-tag"),
    };
}

/// <summary><c>basic.publish</c> (60, 40). Publishes a message; a content header and body frames follow.</summary>
public sealed record BasicPublish : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 40 (publish).</summary>
    public const ushort MethodIdValue = 40;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.publish";
    /// <inheritdoc/>
    public override bool HasContent => true;

    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Exchange name ("" is the default exchange). Wire type: shortstr.</summary>
    public string Exchange { get; init; } = "";

    /// <summary>Routing key. Wire type: shortstr.</summary>
    public string RoutingKey { get; init; } = "";

    /// <summary>Return the message (basic.return) if no queue gets it. Wire type: bit.</summary>
    public bool Mandatory { get; init; }

    /// <summary>Return the message if no consumer can take it at once (RabbitMQ refuses this flag). Wire type: bit.</summary>
    public bool Immediate { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(Ticket);
        writer.WriteShortString(Exchange);
        writer.WriteShortString(RoutingKey);
        writer.WriteBit(Mandatory);
        writer.WriteBit(Immediate);
        writer.Flush();
    }

    internal static BasicPublish Read(ref AmqpReader reader) => new()
    {
        Ticket = reader.ReadShort("ticket"),
        Exchange = reader.ReadShortString("exchange"),
        RoutingKey = reader.ReadShortString("routing-key"),
        Mandatory = reader.ReadBit("mandatory"),
        Immediate = reader.ReadBit("immediate"),
    };
}

/// <summary><c>basic.return</c> (60, 50). Returns an unroutable mandatory message to its publisher; content follows.</summary>
public sealed record BasicReturn : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 50 (return).</summary>
    public const ushort MethodIdValue = 50;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.return";
    /// <inheritdoc/>
    public override bool HasContent => true;

    /// <summary>Reply code (e.g. 200 for a normal close, 404 not found, 406 precondition failed). Wire type: short.</summary>
    public ushort ReplyCode { get; init; }

    /// <summary>Human-readable reason. Wire type: shortstr.</summary>
    public string ReplyText { get; init; } = "";

    /// <summary>Exchange name ("" is the default exchange). Wire type: shortstr.</summary>
    public string Exchange { get; init; } = "";

    /// <summary>Routing key. Wire type: shortstr.</summary>
    public string RoutingKey { get; init; } = "";

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(ReplyCode);
        writer.WriteShortString(ReplyText);
        writer.WriteShortString(Exchange);
        writer.WriteShortString(RoutingKey);
        writer.Flush();
    }

    internal static BasicReturn Read(ref AmqpReader reader) => new()
    {
        ReplyCode = reader.ReadShort("reply-code"),
        ReplyText = reader.ReadShortString("reply-text"),
        Exchange = reader.ReadShortString("exchange"),
        RoutingKey = reader.ReadShortString("routing-key"),
    };
}

/// <summary><c>basic.deliver</c> (60, 60). Delivers a message to a consumer; content follows.</summary>
public sealed record BasicDeliver : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 60 (deliver).</summary>
    public const ushort MethodIdValue = 60;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.deliver";
    /// <inheritdoc/>
    public override bool HasContent => true;

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

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShortString(ConsumerTag);
        writer.WriteLongLong(DeliveryTag);
        writer.WriteBit(Redelivered);
        writer.WriteShortString(Exchange);
        writer.WriteShortString(RoutingKey);
        writer.Flush();
    }

    internal static BasicDeliver Read(ref AmqpReader reader) => new()
    {
        ConsumerTag = reader.ReadShortString("consumer-tag"),
        DeliveryTag = reader.ReadLongLong("delivery-tag"),
        Redelivered = reader.ReadBit("redelivered"),
        Exchange = reader.ReadShortString("exchange"),
        RoutingKey = reader.ReadShortString("routing-key"),
    };
}

/// <summary><c>basic.get</c> (60, 70). Fetches one message from a queue.</summary>
public sealed record BasicGet : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 70 (get).</summary>
    public const ushort MethodIdValue = 70;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.get";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Queue name. Wire type: shortstr.</summary>
    public string Queue { get; init; } = "";

    /// <summary>Messages count as acknowledged once delivered. Wire type: bit.</summary>
    public bool NoAck { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(Ticket);
        writer.WriteShortString(Queue);
        writer.WriteBit(NoAck);
        writer.Flush();
    }

    internal static BasicGet Read(ref AmqpReader reader) => new()
    {
        Ticket = reader.ReadShort("ticket"),
        Queue = reader.ReadShortString("queue"),
        NoAck = reader.ReadBit("no-ack"),
    };
}

/// <summary><c>basic.get-ok</c> (60, 71). Answers basic.get with a message; content follows.</summary>
public sealed record BasicGetOk : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 71 (get-ok).</summary>
    public const ushort MethodIdValue = 71;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.get-ok";
    /// <inheritdoc/>
    public override bool HasContent => true;

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

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteLongLong(DeliveryTag);
        writer.WriteBit(Redelivered);
        writer.WriteShortString(Exchange);
        writer.WriteShortString(RoutingKey);
        writer.WriteLong(MessageCount);
        writer.Flush();
    }

    internal static BasicGetOk Read(ref AmqpReader reader) => new()
    {
        DeliveryTag = reader.ReadLongLong("delivery-tag"),
        Redelivered = reader.ReadBit("redelivered"),
        Exchange = reader.ReadShortString("exchange"),
        RoutingKey = reader.ReadShortString("routing-key"),
        MessageCount = reader.ReadLong("message-count"),
    };
}

/// <summary><c>basic.get-empty</c> (60, 72). Answers basic.get when the queue is empty.</summary>
public sealed record BasicGetEmpty : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 72 (get-empty).</summary>
    public const ushort MethodIdValue = 72;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.get-empty";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Reserved (was cluster-id); empty. Wire type: shortstr.</summary>
    public string ClusterId { get; init; } = "";

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShortString(ClusterId);
        writer.Flush();
    }

    internal static BasicGetEmpty Read(ref AmqpReader reader) => new()
    {
        ClusterId = reader.ReadShortString("cluster-id"),
    };
}

/// <summary><c>basic.ack</c> (60, 80). Acknowledges one or (with Multiple) all messages up to a delivery tag; from the server, confirms publishes.</summary>
public sealed record BasicAck : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 80 (ack).</summary>
    public const ushort MethodIdValue = 80;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.ack";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Delivery tag (or publish sequence number, for confirms). Wire type: longlong.</summary>
    public ulong DeliveryTag { get; init; }

    /// <summary>Applies to all tags up to and including DeliveryTag. Wire type: bit.</summary>
    public bool Multiple { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteLongLong(DeliveryTag);
        writer.WriteBit(Multiple);
        writer.Flush();
    }

    internal static BasicAck Read(ref AmqpReader reader) => new()
    {
        DeliveryTag = reader.ReadLongLong("delivery-tag"),
        Multiple = reader.ReadBit("multiple"),
    };
}

/// <summary><c>basic.reject</c> (60, 90). Rejects one message.</summary>
public sealed record BasicReject : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 90 (reject).</summary>
    public const ushort MethodIdValue = 90;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.reject";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Delivery tag (or publish sequence number, for confirms). Wire type: longlong.</summary>
    public ulong DeliveryTag { get; init; }

    /// <summary>Requeue the message(s) rather than discard or dead-letter them. Wire type: bit.</summary>
    public bool Requeue { get; init; } = true;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteLongLong(DeliveryTag);
        writer.WriteBit(Requeue);
        writer.Flush();
    }

    internal static BasicReject Read(ref AmqpReader reader) => new()
    {
        DeliveryTag = reader.ReadLongLong("delivery-tag"),
        Requeue = reader.ReadBit("requeue"),
    };
}

/// <summary><c>basic.recover-async</c> (60, 100). Deprecated: redelivers unacknowledged messages, without a reply.</summary>
public sealed record BasicRecoverAsync : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 100 (recover-async).</summary>
    public const ushort MethodIdValue = 100;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.recover-async";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Requeue the message(s) rather than discard or dead-letter them. Wire type: bit.</summary>
    public bool Requeue { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteBit(Requeue);
        writer.Flush();
    }

    internal static BasicRecoverAsync Read(ref AmqpReader reader) => new()
    {
        Requeue = reader.ReadBit("requeue"),
    };
}

/// <summary><c>basic.recover</c> (60, 110). Redelivers unacknowledged messages.</summary>
public sealed record BasicRecover : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 110 (recover).</summary>
    public const ushort MethodIdValue = 110;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.recover";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Requeue the message(s) rather than discard or dead-letter them. Wire type: bit.</summary>
    public bool Requeue { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteBit(Requeue);
        writer.Flush();
    }

    internal static BasicRecover Read(ref AmqpReader reader) => new()
    {
        Requeue = reader.ReadBit("requeue"),
    };
}

/// <summary><c>basic.recover-ok</c> (60, 111). Confirms basic.recover.</summary>
public sealed record BasicRecoverOk : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 111 (recover-ok).</summary>
    public const ushort MethodIdValue = 111;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.recover-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static BasicRecoverOk Read(ref AmqpReader reader) => new();
}

/// <summary><c>basic.nack</c> (60, 120). RabbitMQ extension: negatively acknowledges one or many messages; from the server, nacks publishes.</summary>
public sealed record BasicNack : AmqpMethod
{
    /// <summary>Class id 60 (basic).</summary>
    public const ushort ClassIdValue = 60;
    /// <summary>Method id 120 (nack).</summary>
    public const ushort MethodIdValue = 120;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "basic.nack";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Delivery tag (or publish sequence number, for confirms). Wire type: longlong.</summary>
    public ulong DeliveryTag { get; init; }

    /// <summary>Applies to all tags up to and including DeliveryTag. Wire type: bit.</summary>
    public bool Multiple { get; init; }

    /// <summary>Requeue the message(s) rather than discard or dead-letter them. Wire type: bit.</summary>
    public bool Requeue { get; init; } = true;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteLongLong(DeliveryTag);
        writer.WriteBit(Multiple);
        writer.WriteBit(Requeue);
        writer.Flush();
    }

    internal static BasicNack Read(ref AmqpReader reader) => new()
    {
        DeliveryTag = reader.ReadLongLong("delivery-tag"),
        Multiple = reader.ReadBit("multiple"),
        Requeue = reader.ReadBit("requeue"),
    };
}
