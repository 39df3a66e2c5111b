namespace AmqpConformance.Protocol.Generator;

/// <summary>One argument of a method record: a property, in declaration order (which is wire order).</summary>
/// <param name="Property">The C# property name, e.g. "NoWait".</param>
/// <param name="SpecName">The argument's name in the spec, e.g. "nowait" (used in decode error messages).</param>
/// <param name="Type">How the argument travels.</param>
internal sealed record ArgumentModel(string Property, string SpecName, WireType Type);

/// <summary>What the generator knows of one method record: its identity (from <c>[AmqpMethod]</c>) and its
/// arguments.</summary>
/// <param name="TypeName">The record's name, e.g. "BasicPublish".</param>
/// <param name="ClassId">The class id, e.g. 60.</param>
/// <param name="MethodId">The method id, e.g. 40.</param>
/// <param name="Name">The spec name, e.g. "basic.publish".</param>
/// <param name="HasContent">Whether a content header and body follow the method.</param>
/// <param name="Arguments">The arguments in wire order.</param>
/// <param name="Error">Why the record cannot be generated (an unsupported property type), or null.</param>
internal sealed record MethodModel(
    string TypeName,
    ushort ClassId,
    ushort MethodId,
    string Name,
    bool HasContent,
    EquatableArray<ArgumentModel> Arguments,
    string? Error
)
{
    /// <summary>The class and method ids as one key: class id in the high 16 bits.</summary>
    public uint Key => (uint)ClassId << 16 | MethodId;
}
