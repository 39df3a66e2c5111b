// Method records of the AMQP 0-9-1 "tx" class (id 90), argument lists as in RabbitMQ's
// amqp-rabbitmq-0.9.1 specification. Kept in one file per class so a reader sees the class at once.
namespace AmqpConformance.Protocol;

/// <summary><c>tx.select</c> (90, 10). Puts the channel into transactional mode.</summary>
public sealed record TxSelect : AmqpMethod
{
    /// <summary>Class id 90 (tx).</summary>
    public const ushort ClassIdValue = 90;
    /// <summary>Method id 10 (select).</summary>
    public const ushort MethodIdValue = 10;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "tx.select";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static TxSelect Read(ref AmqpReader reader) => new();
}

/// <summary><c>tx.select-ok</c> (90, 11). Confirms tx.select.</summary>
public sealed record TxSelectOk : AmqpMethod
{
    /// <summary>Class id 90 (tx).</summary>
    public const ushort ClassIdValue = 90;
    /// <summary>Method id 11 (select-ok).</summary>
    public const ushort MethodIdValue = 11;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "tx.select-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static TxSelectOk Read(ref AmqpReader reader) => new();
}

/// <summary><c>tx.commit</c> (90, 20). Commits the current transaction.</summary>
public sealed record TxCommit : AmqpMethod
{
    /// <summary>Class id 90 (tx).</summary>
    public const ushort ClassIdValue = 90;
    /// <summary>Method id 20 (commit).</summary>
    public const ushort MethodIdValue = 20;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "tx.commit";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static TxCommit Read(ref AmqpReader reader) => new();
}

/// <summary><c>tx.commit-ok</c> (90, 21). Confirms tx.commit.</summary>
public sealed record TxCommitOk : AmqpMethod
{
    /// <summary>Class id 90 (tx).</summary>
    public const ushort ClassIdValue = 90;
    /// <summary>Method id 21 (commit-ok).</summary>
    public const ushort MethodIdValue = 21;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "tx.commit-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static TxCommitOk Read(ref AmqpReader reader) => new();
}

/// <summary><c>tx.rollback</c> (90, 30). Abandons the current transaction.</summary>
public sealed record TxRollback : AmqpMethod
{
    /// <summary>Class id 90 (tx).</summary>
    public const ushort ClassIdValue = 90;
    /// <summary>Method id 30 (rollback).</summary>
    public const ushort MethodIdValue = 30;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "tx.rollback";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static TxRollback Read(ref AmqpReader reader) => new();
}

/// <summary><c>tx.rollback-ok</c> (90, 31). Confirms tx.rollback.</summary>
public sealed record TxRollbackOk : AmqpMethod
{
    /// <summary>Class id 90 (tx).</summary>
    public const ushort ClassIdValue = 90;
    /// <summary>Method id 31 (rollback-ok).</summary>
    public const ushort MethodIdValue = 31;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "tx.rollback-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static TxRollbackOk Read(ref AmqpReader reader) => new();
}
