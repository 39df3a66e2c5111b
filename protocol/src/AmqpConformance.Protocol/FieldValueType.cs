namespace AmqpConformance.Protocol;

/// <summary>
/// The type tag of a field-table value, as RabbitMQ and its clients use them (RabbitMQ's variant of
/// the 0-9-1 table, not the spec's own tag list). Each member's value is its wire octet.
/// </summary>
public enum FieldValueType : byte
{
    /// <summary>'t': boolean octet (0 or 1); C# <see cref="bool"/>.</summary>
    Boolean = (byte)'t',

    /// <summary>'b': signed 8-bit; C# <see cref="sbyte"/>.</summary>
    Int8 = (byte)'b',

    /// <summary>'B': unsigned 8-bit; C# <see cref="byte"/>.</summary>
    UInt8 = (byte)'B',

    /// <summary>'s': signed 16-bit; C# <see cref="short"/>.</summary>
    Int16 = (byte)'s',

    /// <summary>'u': unsigned 16-bit; C# <see cref="ushort"/>.</summary>
    UInt16 = (byte)'u',

    /// <summary>'I': signed 32-bit; C# <see cref="int"/>.</summary>
    Int32 = (byte)'I',

    /// <summary>'i': unsigned 32-bit; C# <see cref="uint"/>.</summary>
    UInt32 = (byte)'i',

    /// <summary>'l': signed 64-bit; C# <see cref="long"/>.</summary>
    Int64 = (byte)'l',

    /// <summary>'f': IEEE 754 single; C# <see cref="float"/>.</summary>
    Float32 = (byte)'f',

    /// <summary>'d': IEEE 754 double; C# <see cref="double"/>.</summary>
    Float64 = (byte)'d',

    /// <summary>'D': scale octet + signed 32-bit value; C# <see cref="AmqpDecimal"/>.</summary>
    Decimal = (byte)'D',

    /// <summary>'S': long string (32-bit length + bytes); C# <see cref="string"/> (or raw bytes when not valid
    /// UTF-8).</summary>
    LongString = (byte)'S',

    /// <summary>'x': byte array (32-bit length + bytes); C# <see cref="T:byte[]"/>.</summary>
    ByteArray = (byte)'x',

    /// <summary>'A': field array (32-bit byte length + tagged values); C# <see cref="FieldArray"/>.</summary>
    Array = (byte)'A',

    /// <summary>'T': timestamp (64-bit seconds); C# <see cref="AmqpTimestamp"/>.</summary>
    Timestamp = (byte)'T',

    /// <summary>'F': nested field table; C# <see cref="FieldTable"/>.</summary>
    Table = (byte)'F',

    /// <summary>'V': void (no value bytes); C# <c>null</c>.</summary>
    Void = (byte)'V',
}
