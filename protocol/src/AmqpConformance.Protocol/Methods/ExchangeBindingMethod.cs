namespace AmqpConformance.Protocol;

/// <summary>The arguments exchange.bind (<see cref="ExchangeBind"/>) and exchange.unbind (<see cref="ExchangeUnbind"/>)
/// share (RabbitMQ extensions): one exchange-to-exchange binding.</summary>
public abstract record ExchangeBindingMethod : AmqpMethod
{
    private protected ExchangeBindingMethod() { }

    /// <summary>Reserved (was the access ticket); 0. Wire type: short.</summary>
    public ushort Ticket { get; init; }

    /// <summary>Destination exchange of the binding. Wire type: shortstr.</summary>
    public string Destination { get; init; } = "";

    /// <summary>Source exchange of the binding. Wire type: shortstr.</summary>
    public string Source { get; init; } = "";

    /// <summary>Routing key. Wire type: shortstr.</summary>
    public string RoutingKey { get; init; } = "";

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    [SpecName("nowait")]
    public bool NoWait { get; init; }

    /// <summary>Extension arguments (x-*). Wire type: table.</summary>
    public FieldTable Arguments { get; init; } = FieldTable.Empty;
}
