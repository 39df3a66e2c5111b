// Method records of the AMQP 0-9-1 "channel" class (id 20), argument lists as in RabbitMQ's
// amqp-rabbitmq-0.9.1 specification. Kept in one file per class so a reader sees the class at once.
namespace AmqpConformance.Protocol;

/// <summary><c>channel.open</c> (20, 10). Opens a channel.</summary>
public sealed record ChannelOpen : AmqpMethod
{
    /// <summary>Class id 20 (channel).</summary>
    public const ushort ClassIdValue = 20;
    /// <summary>Method id 10 (open).</summary>
    public const ushort MethodIdValue = 10;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "channel.open";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Reserved (was out-of-band); empty. Wire type: shortstr.</summary>
    public string OutOfBand { get; init; } = "";

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShortString(OutOfBand);
        writer.Flush();
    }

    internal static ChannelOpen Read(ref AmqpReader reader) => new()
    {
        OutOfBand = reader.ReadShortString("out-of-band"),
    };
}

/// <summary><c>channel.open-ok</c> (20, 11). Confirms channel.open.</summary>
public sealed record ChannelOpenOk : AmqpMethod
{
    /// <summary>Class id 20 (channel).</summary>
    public const ushort ClassIdValue = 20;
    /// <summary>Method id 11 (open-ok).</summary>
    public const ushort MethodIdValue = 11;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "channel.open-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Reserved (was channel-id); empty. Wire type: longstr.</summary>
    public string ChannelId { get; init; } = "";

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteLongString(ChannelId);
        writer.Flush();
    }

    internal static ChannelOpenOk Read(ref AmqpReader reader) => new()
    {
        ChannelId = reader.ReadLongString("channel-id"),
    };
}

/// <summary><c>channel.flow</c> (20, 20). Asks the peer to stop or restart sending content.</summary>
public sealed record ChannelFlow : AmqpMethod
{
    /// <summary>Class id 20 (channel).</summary>
    public const ushort ClassIdValue = 20;
    /// <summary>Method id 20 (flow).</summary>
    public const ushort MethodIdValue = 20;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "channel.flow";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>True to start (or keep) sending content, false to stop. Wire type: bit.</summary>
    public bool Active { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteBit(Active);
        writer.Flush();
    }

    internal static ChannelFlow Read(ref AmqpReader reader) => new()
    {
        Active = reader.ReadBit("active"),
    };
}

/// <summary><c>channel.flow-ok</c> (20, 21). Confirms channel.flow.</summary>
public sealed record ChannelFlowOk : AmqpMethod
{
    /// <summary>Class id 20 (channel).</summary>
    public const ushort ClassIdValue = 20;
    /// <summary>Method id 21 (flow-ok).</summary>
    public const ushort MethodIdValue = 21;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "channel.flow-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>True to start (or keep) sending content, false to stop. Wire type: bit.</summary>
    public bool Active { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteBit(Active);
        writer.Flush();
    }

    internal static ChannelFlowOk Read(ref AmqpReader reader) => new()
    {
        Active = reader.ReadBit("active"),
    };
}

/// <summary><c>channel.close</c> (20, 40). Closes a channel, naming the reply code and the method that failed (if any).</summary>
public sealed record ChannelClose : AmqpMethod
{
    /// <summary>Class id 20 (channel).</summary>
    public const ushort ClassIdValue = 20;
    /// <summary>Method id 40 (close).</summary>
    public const ushort MethodIdValue = 40;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "channel.close";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Reply code (e.g. 200 for a normal close, 404 not found, 406 precondition failed). Wire type: short.</summary>
    public ushort ReplyCode { get; init; }

    /// <summary>Human-readable reason. Wire type: shortstr.</summary>
    public string ReplyText { get; init; } = "";

    /// <summary>Class id of the method that caused the close; 0 if none. Wire type: short.</summary>
    public ushort FailingClassId { get; init; }

    /// <summary>Method id of the method that caused the close; 0 if none. Wire type: short.</summary>
    public ushort FailingMethodId { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(ReplyCode);
        writer.WriteShortString(ReplyText);
        writer.WriteShort(FailingClassId);
        writer.WriteShort(FailingMethodId);
        writer.Flush();
    }

    internal static ChannelClose Read(ref AmqpReader reader) => new()
    {
        ReplyCode = reader.ReadShort("reply-code"),
        ReplyText = reader.ReadShortString("reply-text"),
        FailingClassId = reader.ReadShort("class-id"),
        FailingMethodId = reader.ReadShort("method-id"),
    };
}

/// <summary><c>channel.close-ok</c> (20, 41). Confirms channel.close.</summary>
public sealed record ChannelCloseOk : AmqpMethod
{
    /// <summary>Class id 20 (channel).</summary>
    public const ushort ClassIdValue = 20;
    /// <summary>Method id 41 (close-ok).</summary>
    public const ushort MethodIdValue = 41;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "channel.close-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static ChannelCloseOk Read(ref AmqpReader reader) => new();
}
