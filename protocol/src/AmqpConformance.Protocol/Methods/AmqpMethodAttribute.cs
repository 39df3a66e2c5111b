namespace AmqpConformance.Protocol;

/// <summary>
/// Marks a method record (a <c>partial record</c> deriving from <see cref="AmqpMethod"/>) and states its identity once.
/// Its arguments are its instance properties with an init accessor (a shared abstract base record's first, e.g.
/// <see cref="CloseMethod"/>), in declaration order, which is wire order; their C# types give their wire types (byte
/// octet, ushort short, uint long, ulong longlong, bool bit, string shortstr or <see cref="LongStringAttribute"/>
/// longstr, <c>ReadOnlyMemory&lt;byte&gt;</c> longstr as raw bytes, <see cref="FieldTable"/> table). The generator in
/// protocol/generator writes everything else on every build: <c>ClassIdValue</c>/<c>MethodIdValue</c>, the
/// <see cref="IAmqpMethod"/> members, the encoder and decoder, and <see cref="MethodCodec"/>'s table.
/// </summary>
/// <param name="classId">The class id (10 connection, 20 channel, 40 exchange, 50 queue, 60 basic, 85 confirm, 90
/// tx).</param>
/// <param name="methodId">The method id within the class.</param>
/// <param name="name">The spec name, e.g. "basic.publish".</param>
[AttributeUsage(AttributeTargets.Class, Inherited = false)]
internal sealed class AmqpMethodAttribute(ushort classId, ushort methodId, string name) : Attribute
{
    /// <summary>The class id.</summary>
    public ushort ClassId { get; } = classId;

    /// <summary>The method id within the class.</summary>
    public ushort MethodId { get; } = methodId;

    /// <summary>The spec name.</summary>
    public string Name { get; } = name;

    /// <summary>Whether a content header and body frames follow the method.</summary>
    public bool HasContent { get; set; }
}
