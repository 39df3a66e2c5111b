// Method records of the AMQP 0-9-1 "queue" class (id 50), argument lists as in RabbitMQ's
// amqp-rabbitmq-0.9.1 specification. Kept in one file per class so a reader sees the class at once.
namespace AmqpConformance.Protocol;

/// <summary>Declares (or with Passive, checks) a queue; an empty name asks the server to name it.</summary>
[AmqpMethod(50, 10, "queue.declare")]
public sealed partial record QueueDeclare : AmqpMethod
{
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
    [SpecName("nowait")]
    public bool NoWait { get; init; }

    /// <summary>Extension arguments (x-*). Wire type: table.</summary>
    public FieldTable Arguments { get; init; } = FieldTable.Empty;
}

/// <summary>Confirms queue.declare with the queue's name and counts.</summary>
[AmqpMethod(50, 11, "queue.declare-ok")]
public sealed partial record QueueDeclareOk : AmqpMethod
{
    /// <summary>Queue name. Wire type: shortstr.</summary>
    public string Queue { get; init; } = "";

    /// <summary>Number of messages. Wire type: long.</summary>
    public uint MessageCount { get; init; }

    /// <summary>Number of consumers. Wire type: long.</summary>
    public uint ConsumerCount { get; init; }
}

/// <summary>Binds a queue to an exchange.</summary>
[AmqpMethod(50, 20, "queue.bind")]
public sealed partial record QueueBind : AmqpMethod
{
    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Queue name. Wire type: shortstr.</summary>
    public string Queue { get; init; } = "";

    /// <summary>Exchange name ("" is the default exchange). Wire type: shortstr.</summary>
    public string Exchange { get; init; } = "";

    /// <summary>Routing key. Wire type: shortstr.</summary>
    public string RoutingKey { get; init; } = "";

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    [SpecName("nowait")]
    public bool NoWait { get; init; }

    /// <summary>Extension arguments (x-*). Wire type: table.</summary>
    public FieldTable Arguments { get; init; } = FieldTable.Empty;
}

/// <summary>Confirms queue.bind.</summary>
[AmqpMethod(50, 21, "queue.bind-ok")]
public sealed partial record QueueBindOk : AmqpMethod;

/// <summary>Removes all ready messages from a queue.</summary>
[AmqpMethod(50, 30, "queue.purge")]
public sealed partial record QueuePurge : AmqpMethod
{
    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Queue name. Wire type: shortstr.</summary>
    public string Queue { get; init; } = "";

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    [SpecName("nowait")]
    public bool NoWait { get; init; }
}

/// <summary>Confirms queue.purge with the number of messages removed.</summary>
[AmqpMethod(50, 31, "queue.purge-ok")]
public sealed partial record QueuePurgeOk : AmqpMethod
{
    /// <summary>Number of messages. Wire type: long.</summary>
    public uint MessageCount { get; init; }
}

/// <summary>Deletes a queue.</summary>
[AmqpMethod(50, 40, "queue.delete")]
public sealed partial record QueueDelete : AmqpMethod
{
    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Queue name. Wire type: shortstr.</summary>
    public string Queue { get; init; } = "";

    /// <summary>Delete only if unused. Wire type: bit.</summary>
    public bool IfUnused { get; init; }

    /// <summary>Delete only if the queue has no messages. Wire type: bit.</summary>
    public bool IfEmpty { get; init; }

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    [SpecName("nowait")]
    public bool NoWait { get; init; }
}

/// <summary>Confirms queue.delete with the number of messages deleted.</summary>
[AmqpMethod(50, 41, "queue.delete-ok")]
public sealed partial record QueueDeleteOk : AmqpMethod
{
    /// <summary>Number of messages. Wire type: long.</summary>
    public uint MessageCount { get; init; }
}

/// <summary>Removes a queue binding.</summary>
[AmqpMethod(50, 50, "queue.unbind")]
public sealed partial record QueueUnbind : AmqpMethod
{
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
}

/// <summary>Confirms queue.unbind.</summary>
[AmqpMethod(50, 51, "queue.unbind-ok")]
public sealed partial record QueueUnbindOk : AmqpMethod;
