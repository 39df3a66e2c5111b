// Method records of the AMQP 0-9-1 "exchange" class (id 40), argument lists as in RabbitMQ's
// amqp-rabbitmq-0.9.1 specification. Kept in one file per class so a reader sees the class at once.
namespace AmqpConformance.Protocol;

/// <summary>Declares (or with Passive, checks) an exchange.</summary>
[AmqpMethod(40, 10, "exchange.declare")]
public sealed partial record ExchangeDeclare : AmqpMethod
{
    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Exchange name ("" is the default exchange). Wire type: shortstr.</summary>
    public string Exchange { get; init; } = "";

    /// <summary>Exchange type (direct, fanout, topic, headers, ...). Wire type: shortstr.</summary>
    public string Type { get; init; } = "direct";

    /// <summary>Only check that it exists; do not create it. Wire type: bit.</summary>
    public bool Passive { get; init; }

    /// <summary>Survives a broker restart. Wire type: bit.</summary>
    public bool Durable { get; init; }

    /// <summary>Deleted when the last binding (exchange) or consumer (queue) goes away. Wire type: bit.</summary>
    public bool AutoDelete { get; init; }

    /// <summary>Cannot be published to directly, only via exchange-to-exchange bindings. Wire type: bit.</summary>
    public bool Internal { get; init; }

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    [SpecName("nowait")]
    public bool NoWait { get; init; }

    /// <summary>Extension arguments (x-*). Wire type: table.</summary>
    public FieldTable Arguments { get; init; } = FieldTable.Empty;
}

/// <summary>Confirms exchange.declare.</summary>
[AmqpMethod(40, 11, "exchange.declare-ok")]
public sealed partial record ExchangeDeclareOk : AmqpMethod;

/// <summary>Deletes an exchange.</summary>
[AmqpMethod(40, 20, "exchange.delete")]
public sealed partial record ExchangeDelete : AmqpMethod
{
    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Exchange name ("" is the default exchange). Wire type: shortstr.</summary>
    public string Exchange { get; init; } = "";

    /// <summary>Delete only if unused. Wire type: bit.</summary>
    public bool IfUnused { get; init; }

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    [SpecName("nowait")]
    public bool NoWait { get; init; }
}

/// <summary>Confirms exchange.delete.</summary>
[AmqpMethod(40, 21, "exchange.delete-ok")]
public sealed partial record ExchangeDeleteOk : AmqpMethod;

/// <summary>RabbitMQ extension: binds an exchange to an exchange.</summary>
[AmqpMethod(40, 30, "exchange.bind")]
public sealed partial record ExchangeBind : ExchangeBindingMethod;

/// <summary>Confirms exchange.bind.</summary>
[AmqpMethod(40, 31, "exchange.bind-ok")]
public sealed partial record ExchangeBindOk : AmqpMethod;

/// <summary>RabbitMQ extension: removes an exchange-to-exchange binding.</summary>
[AmqpMethod(40, 40, "exchange.unbind")]
public sealed partial record ExchangeUnbind : ExchangeBindingMethod;

/// <summary>Confirms exchange.unbind (method id 51, not 41, as RabbitMQ defines it).</summary>
[AmqpMethod(40, 51, "exchange.unbind-ok")]
public sealed partial record ExchangeUnbindOk : AmqpMethod;
