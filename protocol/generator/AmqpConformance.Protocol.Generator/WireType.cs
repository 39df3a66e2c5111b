namespace AmqpConformance.Protocol.Generator;

/// <summary>The AMQP 0-9-1 argument types a method record's property can carry, each with the <c>AmqpWriter</c> and
/// <c>AmqpReader</c> calls that encode and decode it.</summary>
internal enum WireType
{
    /// <summary>octet: <c>byte</c>.</summary>
    Octet,

    /// <summary>short: <c>ushort</c>.</summary>
    Short,

    /// <summary>long: <c>uint</c>.</summary>
    Long,

    /// <summary>longlong: <c>ulong</c>.</summary>
    LongLong,

    /// <summary>bit: <c>bool</c> (consecutive bits share an octet; the writer packs them).</summary>
    Bit,

    /// <summary>shortstr: <c>string</c>.</summary>
    ShortString,

    /// <summary>longstr: <c>string</c> marked <c>[LongString]</c>.</summary>
    LongString,

    /// <summary>longstr kept as raw bytes: <c>ReadOnlyMemory&lt;byte&gt;</c> (compared by content).</summary>
    Bytes,

    /// <summary>table: <c>FieldTable</c>.</summary>
    Table,
}

/// <summary>The encoder and decoder calls of each <see cref="WireType"/>.</summary>
internal static class WireTypeCalls
{
    /// <summary>The statement that writes property <paramref name="property"/> through <c>writer</c>.</summary>
    public static string Write(WireType type, string property) =>
        $"writer.{Methods(type).Writer}({property}{(type == WireType.Bytes ? ".Span" : "")});";

    /// <summary>The expression that reads the argument named <paramref name="specName"/> through
    /// <c>reader</c>.</summary>
    public static string Read(WireType type, string specName) =>
        $"reader.{Methods(type).Reader}(\"{specName}\"){(type == WireType.Bytes ? ".ToArray()" : "")}";

    private static (string Writer, string Reader) Methods(WireType type) =>
        type switch
        {
            WireType.Octet => ("WriteOctet", "ReadOctet"),
            WireType.Short => ("WriteShort", "ReadShort"),
            WireType.Long => ("WriteLong", "ReadLong"),
            WireType.LongLong => ("WriteLongLong", "ReadLongLong"),
            WireType.Bit => ("WriteBit", "ReadBit"),
            WireType.ShortString => ("WriteShortString", "ReadShortString"),
            WireType.LongString => ("WriteLongString", "ReadLongString"),
            WireType.Bytes => ("WriteLongString", "ReadLongStringSpan"),
            _ => ("WriteFieldTable", "ReadFieldTable"),
        };
}
