namespace AmqpConformance.Protocol;

/// <summary>
/// Base of the method records. Records compare by value (field tables and binary strings by content), so
/// <c>MethodCodec.Decode(payload) == original</c> holds for any method encoded with <see cref="MethodCodec"/>.
/// Only this assembly can add methods; encode any <see cref="IAmqpMethod"/> through <see cref="MethodCodec"/>.
/// </summary>
public abstract record AmqpMethod : IAmqpMethod
{
    private protected AmqpMethod() { }

    /// <inheritdoc/>
    public abstract ushort ClassId { get; }

    /// <inheritdoc/>
    public abstract ushort MethodId { get; }

    /// <inheritdoc/>
    public abstract string Name { get; }

    /// <inheritdoc/>
    public abstract bool HasContent { get; }

    /// <summary>Writes the arguments (not the ids) and flushes pending bits.</summary>
    internal abstract void WriteArguments(ref AmqpWriter writer);
}
