// Method records of the AMQP 0-9-1 "confirm" class (id 85), argument lists as in RabbitMQ's
// amqp-rabbitmq-0.9.1 specification. Kept in one file per class so a reader sees the class at once.
namespace AmqpConformance.Protocol;

/// <summary>RabbitMQ extension: puts the channel into publisher-confirm mode.</summary>
[AmqpMethod(85, 10, "confirm.select")]
public sealed partial record ConfirmSelect : AmqpMethod
{
    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    [SpecName("nowait")]
    public bool NoWait { get; init; }
}

/// <summary>Confirms confirm.select.</summary>
[AmqpMethod(85, 11, "confirm.select-ok")]
public sealed partial record ConfirmSelectOk : AmqpMethod;
