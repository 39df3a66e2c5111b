// Method records of the AMQP 0-9-1 "queue" class (id 50), argument lists as in RabbitMQ's
// amqp-rabbitmq-0.9.1 specification. Kept in one file per class so a reader sees the class at once.
namespace AmqpConformance.Protocol;

/// <summary><c>queue.declare</c> (50, 10). Declares (or with Passive, checks) a queue; an empty name asks the server to name it.</summary>
public sealed record QueueDeclare : AmqpMethod
{
    /// <summary>Class id 50 (queue).</summary>
    public const ushort ClassIdValue = 50;
    /// <summary>Method id 10 (declare).</summary>
    public const ushort MethodIdValue = 10;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "queue.declare";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Queue name. Wire type: shortstr.</summary>
    public string Queue { get; init; } = "";

    /// <summary>Only check that it exists; do not create it. Wire type: bit.</summary>
    public bool Passive { get; init; }

    /// <summary>Survives a broker restart. Wire type: bit.</summary>
    public bool Durable { get; init; }

    /// <summary>Exclusive to this connection (queue) or consumer. Wire type: bit.</summary>
    public bool Exclusive { get; init; }

    /// <summary>Deleted when the last binding (exchange) or consumer (queue) goes away. Wire type: bit.</summary>
    public bool AutoDelete { get; init; }

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    public bool NoWait { get; init; }

    /// <summary>Extension arguments (x-*). Wire type: table.</summary>
    public FieldTable Arguments { get; init; } = FieldTable.Empty;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(Ticket);
        writer.WriteShortString(Queue);
        writer.WriteBit(Passive);
        writer.WriteBit(Durable);
        writer.WriteBit(Exclusive);
        writer.WriteBit(AutoDelete);
        writer.WriteBit(NoWait);
        writer.WriteFieldTable(Arguments);
        writer.Flush();
    }

    internal static QueueDeclare Read(ref AmqpReader reader) => new()
    {
        Ticket = reader.ReadShort("ticket"),
        Queue = reader.ReadShortString("queue"),
        Passive = reader.ReadBit("passive"),
        Durable = reader.ReadBit("durable"),
        Exclusive = reader.ReadBit("exclusive"),
        AutoDelete = reader.ReadBit("auto-delete"),
        NoWait = reader.ReadBit("nowait"),
        Arguments = reader.ReadFieldTable("arguments"),
    };
}

/// <summary><c>queue.declare-ok</c> (50, 11). Confirms queue.declare with the queue's name and counts.</summary>
public sealed record QueueDeclareOk : AmqpMethod
{
    /// <summary>Class id 50 (queue).</summary>
    public const ushort ClassIdValue = 50;
    /// <summary>Method id 11 (declare-ok).</summary>
    public const ushort MethodIdValue = 11;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "queue.declare-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Queue name. Wire type: shortstr.</summary>
    public string Queue { get; init; } = "";

    /// <summary>Number of messages. Wire type: long.</summary>
    public uint MessageCount { get; init; }

    /// <summary>Number of consumers. Wire type: long.</summary>
    public uint ConsumerCount { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShortString(Queue);
        writer.WriteLong(MessageCount);
        writer.WriteLong(ConsumerCount);
        writer.Flush();
    }

    internal static QueueDeclareOk Read(ref AmqpReader reader) => new()
    {
        Queue = reader.ReadShortString("queue"),
        MessageCount = reader.ReadLong("message-count"),
        ConsumerCount = reader.ReadLong("consumer-count"),
    };
}

/// <summary><c>queue.bind</c> (50, 20). Binds a queue to an exchange.</summary>
public sealed record QueueBind : AmqpMethod
{
    /// <summary>Class id 50 (queue).</summary>
    public const ushort ClassIdValue = 50;
    /// <summary>Method id 20 (bind).</summary>
    public const ushort MethodIdValue = 20;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "queue.bind";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Queue name. Wire type: shortstr.</summary>
    public string Queue { get; init; } = "";

    /// <summary>Exchange name ("" is the default exchange). Wire type: shortstr.</summary>
    public string Exchange { get; init; } = "";

    /// <summary>Routing key. Wire type: shortstr.</summary>
    public string RoutingKey { get; init; } = "";

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    public bool NoWait { get; init; }

    /// <summary>Extension arguments (x-*). Wire type: table.</summary>
    public FieldTable Arguments { get; init; } = FieldTable.Empty;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(Ticket);
        writer.WriteShortString(Queue);
        writer.WriteShortString(Exchange);
        writer.WriteShortString(RoutingKey);
        writer.WriteBit(NoWait);
        writer.WriteFieldTable(Arguments);
        writer.Flush();
    }

    internal static QueueBind Read(ref AmqpReader reader) => new()
    {
        Ticket = reader.ReadShort("ticket"),
        Queue = reader.ReadShortString("queue"),
        Exchange = reader.ReadShortString("exchange"),
        RoutingKey = reader.ReadShortString("routing-key"),
        NoWait = reader.ReadBit("nowait"),
        Arguments = reader.ReadFieldTable("arguments"),
    };
}

/// <summary><c>queue.bind-ok</c> (50, 21). Confirms queue.bind.</summary>
public sealed record QueueBindOk : AmqpMethod
{
    /// <summary>Class id 50 (queue).</summary>
    public const ushort ClassIdValue = 50;
    /// <summary>Method id 21 (bind-ok).</summary>
    public const ushort MethodIdValue = 21;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "queue.bind-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static QueueBindOk Read(ref AmqpReader reader) => new();
}

/// <summary><c>queue.purge</c> (50, 30). Removes all ready messages from a queue.</summary>
public sealed record QueuePurge : AmqpMethod
{
    /// <summary>Class id 50 (queue).</summary>
    public const ushort ClassIdValue = 50;
    /// <summary>Method id 30 (purge).</summary>
    public const ushort MethodIdValue = 30;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "queue.purge";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Queue name. Wire type: shortstr.</summary>
    public string Queue { get; init; } = "";

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    public bool NoWait { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(Ticket);
        writer.WriteShortString(Queue);
        writer.WriteBit(NoWait);
        writer.Flush();
    }

    internal static QueuePurge Read(ref AmqpReader reader) => new()
    {
        Ticket = reader.ReadShort("ticket"),
        Queue = reader.ReadShortString("queue"),
        NoWait = reader.ReadBit("nowait"),
    };
}

/// <summary><c>queue.purge-ok</c> (50, 31). Confirms queue.purge with the number of messages removed.</summary>
public sealed record QueuePurgeOk : AmqpMethod
{
    /// <summary>Class id 50 (queue).</summary>
    public const ushort ClassIdValue = 50;
    /// <summary>Method id 31 (purge-ok).</summary>
    public const ushort MethodIdValue = 31;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "queue.purge-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Number of messages. Wire type: long.</summary>
    public uint MessageCount { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteLong(MessageCount);
        writer.Flush();
    }

    internal static QueuePurgeOk Read(ref AmqpReader reader) => new()
    {
        MessageCount = reader.ReadLong("message-count"),
    };
}

/// <summary><c>queue.delete</c> (50, 40). Deletes a queue.</summary>
public sealed record QueueDelete : AmqpMethod
{
    /// <summary>Class id 50 (queue).</summary>
    public const ushort ClassIdValue = 50;
    /// <summary>Method id 40 (delete).</summary>
    public const ushort MethodIdValue = 40;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "queue.delete";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Queue name. Wire type: shortstr.</summary>
    public string Queue { get; init; } = "";

    /// <summary>Delete only if unused. Wire type: bit.</summary>
    public bool IfUnused { get; init; }

    /// <summary>Delete only if the queue has no messages. Wire type: bit.</summary>
    public bool IfEmpty { get; init; }

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    public bool NoWait { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(Ticket);
        writer.WriteShortString(Queue);
        writer.WriteBit(IfUnused);
        writer.WriteBit(IfEmpty);
        writer.WriteBit(NoWait);
        writer.Flush();
    }

    internal static QueueDelete Read(ref AmqpReader reader) => new()
    {
        Ticket = reader.ReadShort("ticket"),
        Queue = reader.ReadShortString("queue"),
        IfUnused = reader.ReadBit("if-unused"),
        IfEmpty = reader.ReadBit("if-empty"),
        NoWait = reader.ReadBit("nowait"),
    };
}

/// <summary><c>queue.delete-ok</c> (50, 41). Confirms queue.delete with the number of messages deleted.</summary>
public sealed record QueueDeleteOk : AmqpMethod
{
    /// <summary>Class id 50 (queue).</summary>
    public const ushort ClassIdValue = 50;
    /// <summary>Method id 41 (delete-ok).</summary>
    public const ushort MethodIdValue = 41;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "queue.delete-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Number of messages. Wire type: long.</summary>
    public uint MessageCount { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteLong(MessageCount);
        writer.Flush();
    }

    internal static QueueDeleteOk Read(ref AmqpReader reader) => new()
    {
        MessageCount = reader.ReadLong("message-count"),
    };
}

/// <summary><c>queue.unbind</c> (50, 50). Removes a queue binding.</summary>
public sealed record QueueUnbind : AmqpMethod
{
    /// <summary>Class id 50 (queue).</summary>
    public const ushort ClassIdValue = 50;
    /// <summary>Method id 50 (unbind).</summary>
    public const ushort MethodIdValue = 50;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "queue.unbind";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Queue name. Wire type: shortstr.</summary>
    public string Queue { get; init; } = "";

    /// <summary>Exchange name ("" is the default exchange). Wire type: shortstr.</summary>
    public string Exchange { get; init; } = "";

    /// <summary>Routing key. Wire type: shortstr.</summary>
    public string RoutingKey { get; init; } = "";

    /// <summary>Extension arguments (x-*). Wire type: table.</summary>
    public FieldTable Arguments { get; init; } = FieldTable.Empty;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(Ticket);
        writer.WriteShortString(Queue);
        writer.WriteShortString(Exchange);
        writer.WriteShortString(RoutingKey);
        writer.WriteFieldTable(Arguments);
        writer.Flush();
    }

    internal static QueueUnbind Read(ref AmqpReader reader) => new()
    {
        Ticket = reader.ReadShort("ticket"),
        Queue = reader.ReadShortString("queue"),
        Exchange = reader.ReadShortString("exchange"),
        RoutingKey = reader.ReadShortString("routing-key"),
        Arguments = reader.ReadFieldTable("arguments"),
    };
}

/// <summary><c>queue.unbind-ok</c> (50, 51). Confirms queue.unbind.</summary>
public sealed record QueueUnbindOk : AmqpMethod
{
    /// <summary>Class id 50 (queue).</summary>
    public const ushort ClassIdValue = 50;
    /// <summary>Method id 51 (unbind-ok).</summary>
    public const ushort MethodIdValue = 51;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "queue.unbind-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static QueueUnbindOk Read(ref AmqpReader reader) => new();
}
