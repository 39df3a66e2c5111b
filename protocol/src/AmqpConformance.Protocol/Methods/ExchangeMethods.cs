// Method records of the AMQP 0-9-1 "exchange" class (id 40), argument lists as in RabbitMQ's
// amqp-rabbitmq-0.9.1 specification. Kept in one file per class so a reader sees the class at once.
namespace AmqpConformance.Protocol;

/// <summary><c>exchange.declare</c> (40, 10). Declares (or with Passive, checks) an exchange.</summary>
public sealed record ExchangeDeclare : AmqpMethod
{
    /// <summary>Class id 40 (exchange).</summary>
    public const ushort ClassIdValue = 40;
    /// <summary>Method id 10 (declare).</summary>
    public const ushort MethodIdValue = 10;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "exchange.declare";
    /// <inheritdoc/>
    public override bool HasContent => false;

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
    public bool NoWait { get; init; }

    /// <summary>Extension arguments (x-*). Wire type: table.</summary>
    public FieldTable Arguments { get; init; } = FieldTable.Empty;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(Ticket);
        writer.WriteShortString(Exchange);
        writer.WriteShortString(Type);
        writer.WriteBit(Passive);
        writer.WriteBit(Durable);
        writer.WriteBit(AutoDelete);
        writer.WriteBit(Internal);
        writer.WriteBit(NoWait);
        writer.WriteFieldTable(Arguments);
        writer.Flush();
    }

    internal static ExchangeDeclare Read(ref AmqpReader reader) => new()
    {
        Ticket = reader.ReadShort("ticket"),
        Exchange = reader.ReadShortString("exchange"),
        Type = reader.ReadShortString("type"),
        Passive = reader.ReadBit("passive"),
        Durable = reader.ReadBit("durable"),
        AutoDelete = reader.ReadBit("auto-delete"),
        Internal = reader.ReadBit("internal"),
        NoWait = reader.ReadBit("nowait"),
        Arguments = reader.ReadFieldTable("arguments"),
    };
}

/// <summary><c>exchange.declare-ok</c> (40, 11). Confirms exchange.declare.</summary>
public sealed record ExchangeDeclareOk : AmqpMethod
{
    /// <summary>Class id 40 (exchange).</summary>
    public const ushort ClassIdValue = 40;
    /// <summary>Method id 11 (declare-ok).</summary>
    public const ushort MethodIdValue = 11;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "exchange.declare-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static ExchangeDeclareOk Read(ref AmqpReader reader) => new();
}

/// <summary><c>exchange.delete</c> (40, 20). Deletes an exchange.</summary>
public sealed record ExchangeDelete : AmqpMethod
{
    /// <summary>Class id 40 (exchange).</summary>
    public const ushort ClassIdValue = 40;
    /// <summary>Method id 20 (delete).</summary>
    public const ushort MethodIdValue = 20;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "exchange.delete";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Exchange name ("" is the default exchange). Wire type: shortstr.</summary>
    public string Exchange { get; init; } = "";

    /// <summary>Delete only if unused. Wire type: bit.</summary>
    public bool IfUnused { get; init; }

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    public bool NoWait { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(Ticket);
        writer.WriteShortString(Exchange);
        writer.WriteBit(IfUnused);
        writer.WriteBit(NoWait);
        writer.Flush();
    }

    internal static ExchangeDelete Read(ref AmqpReader reader) => new()
    {
        Ticket = reader.ReadShort("ticket"),
        Exchange = reader.ReadShortString("exchange"),
        IfUnused = reader.ReadBit("if-unused"),
        NoWait = reader.ReadBit("nowait"),
    };
}

/// <summary><c>exchange.delete-ok</c> (40, 21). Confirms exchange.delete.</summary>
public sealed record ExchangeDeleteOk : AmqpMethod
{
    /// <summary>Class id 40 (exchange).</summary>
    public const ushort ClassIdValue = 40;
    /// <summary>Method id 21 (delete-ok).</summary>
    public const ushort MethodIdValue = 21;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "exchange.delete-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static ExchangeDeleteOk Read(ref AmqpReader reader) => new();
}

/// <summary><c>exchange.bind</c> (40, 30). RabbitMQ extension: binds an exchange to an exchange.</summary>
public sealed record ExchangeBind : AmqpMethod
{
    /// <summary>Class id 40 (exchange).</summary>
    public const ushort ClassIdValue = 40;
    /// <summary>Method id 30 (bind).</summary>
    public const ushort MethodIdValue = 30;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "exchange.bind";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Destination exchange of the binding. Wire type: shortstr.</summary>
    public string Destination { get; init; } = "";

    /// <summary>Source exchange of the binding. Wire type: shortstr.</summary>
    public string Source { get; init; } = "";

    /// <summary>Routing key. Wire type: shortstr.</summary>
    public string RoutingKey { get; init; } = "";

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    public bool NoWait { get; init; }

    /// <summary>Extension arguments (x-*). Wire type: table.</summary>
    public FieldTable Arguments { get; init; } = FieldTable.Empty;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(Ticket);
        writer.WriteShortString(Destination);
        writer.WriteShortString(Source);
        writer.WriteShortString(RoutingKey);
        writer.WriteBit(NoWait);
        writer.WriteFieldTable(Arguments);
        writer.Flush();
    }

    internal static ExchangeBind Read(ref AmqpReader reader) => new()
    {
        Ticket = reader.ReadShort("ticket"),
        Destination = reader.ReadShortString("destination"),
        Source = reader.ReadShortString("source"),
        RoutingKey = reader.ReadShortString("routing-key"),
        NoWait = reader.ReadBit("nowait"),
        Arguments = reader.ReadFieldTable("arguments"),
    };
}

/// <summary><c>exchange.bind-ok</c> (40, 31). Confirms exchange.bind.</summary>
public sealed record ExchangeBindOk : AmqpMethod
{
    /// <summary>Class id 40 (exchange).</summary>
    public const ushort ClassIdValue = 40;
    /// <summary>Method id 31 (bind-ok).</summary>
    public const ushort MethodIdValue = 31;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "exchange.bind-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static ExchangeBindOk Read(ref AmqpReader reader) => new();
}

/// <summary><c>exchange.unbind</c> (40, 40). RabbitMQ extension: removes an exchange-to-exchange binding.</summary>
public sealed record ExchangeUnbind : AmqpMethod
{
    /// <summary>Class id 40 (exchange).</summary>
    public const ushort ClassIdValue = 40;
    /// <summary>Method id 40 (unbind).</summary>
    public const ushort MethodIdValue = 40;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "exchange.unbind";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Destination exchange of the binding. Wire type: shortstr.</summary>
    public string Destination { get; init; } = "";

    /// <summary>Source exchange of the binding. Wire type: shortstr.</summary>
    public string Source { get; init; } = "";

    /// <summary>Routing key. Wire type: shortstr.</summary>
    public string RoutingKey { get; init; } = "";

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    public bool NoWait { get; init; }

    /// <summary>Extension arguments (x-*). Wire type: table.</summary>
    public FieldTable Arguments { get; init; } = FieldTable.Empty;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(Ticket);
        writer.WriteShortString(Destination);
        writer.WriteShortString(Source);
        writer.WriteShortString(RoutingKey);
        writer.WriteBit(NoWait);
        writer.WriteFieldTable(Arguments);
        writer.Flush();
    }

    internal static ExchangeUnbind Read(ref AmqpReader reader) => new()
    {
        Ticket = reader.ReadShort("ticket"),
        Destination = reader.ReadShortString("destination"),
        Source = reader.ReadShortString("source"),
        RoutingKey = reader.ReadShortString("routing-key"),
        NoWait = reader.ReadBit("nowait"),
        Arguments = reader.ReadFieldTable("arguments"),
    };
}

/// <summary><c>exchange.unbind-ok</c> (40, 51). Confirms exchange.unbind (method id 51, not 41, as RabbitMQ defines it).</summary>
public sealed record ExchangeUnbindOk : AmqpMethod
{
    /// <summary>Class id 40 (exchange).</summary>
    public const ushort ClassIdValue = 40;
    /// <summary>Method id 51 (unbind-ok).</summary>
    public const ushort MethodIdValue = 51;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "exchange.unbind-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static ExchangeUnbindOk Read(ref AmqpReader reader) => new();
}
