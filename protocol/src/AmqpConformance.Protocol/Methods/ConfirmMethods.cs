// Method records of the AMQP 0-9-1 "confirm" class (id 85), argument lists as in RabbitMQ's
// amqp-rabbitmq-0.9.1 specification. Kept in one file per class so a reader sees the class at once.
namespace AmqpConformance.Protocol;

/// <summary><c>confirm.select</c> (85, 10). RabbitMQ extension: puts the channel into publisher-confirm mode.</summary>
public sealed record ConfirmSelect : AmqpMethod
{
    /// <summary>Class id 85 (confirm).</summary>
    public const ushort ClassIdValue = 85;
    /// <summary>Method id 10 (select).</summary>
    public const ushort MethodIdValue = 10;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "confirm.select";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Asks the server not to reply. Wire type: bit.</summary>
    public bool NoWait { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteBit(NoWait);
        writer.Flush();
    }

    internal static ConfirmSelect Read(ref AmqpReader reader) => new()
    {
        NoWait = reader.ReadBit("nowait"),
    };
}

/// <summary><c>confirm.select-ok</c> (85, 11). Confirms confirm.select.</summary>
public sealed record ConfirmSelectOk : AmqpMethod
{
    /// <summary>Class id 85 (confirm).</summary>
    public const ushort ClassIdValue = 85;
    /// <summary>Method id 11 (select-ok).</summary>
    public const ushort MethodIdValue = 11;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "confirm.select-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static ConfirmSelectOk Read(ref AmqpReader reader) => new();
}
