using System.Collections;
using System.Globalization;
using System.Text;
using System.Text.Unicode;

namespace AmqpConformance.Protocol;

/// <summary>
/// One value of a <see cref="FieldTable"/> or <see cref="FieldArray"/>: its exact wire type tag
/// (<see cref="Type"/>) and its typed value (<see cref="Value"/>). Keeping the tag means a value
/// decoded as 'i' (uint32) is encoded as 'i' again, so decode then encode is byte-exact.
/// </summary>
/// <remarks>
/// Implicit conversions give the natural tag for each C# type: <see cref="string"/> → 'S',
/// <see cref="int"/> → 'I', <see cref="long"/> → 'l', <see cref="bool"/> → 't', <see cref="T:byte[]"/> → 'x'
/// (copied), <see cref="FieldTable"/> → 'F', <see cref="FieldArray"/> → 'A', <see cref="AmqpTimestamp"/> → 'T',
/// and so on (see <see cref="FieldValueType"/>); a null reference becomes 'V'. <c>default(FieldValue)</c> is void.
/// </remarks>
public readonly struct FieldValue : IEquatable<FieldValue>
{
    private readonly FieldValueType _type;

    private FieldValue(FieldValueType type, object? value)
    {
        _type = type;
        Value = value;
    }

    /// <summary>The wire type tag.</summary>
    public FieldValueType Type => _type == 0 ? FieldValueType.Void : _type;

    /// <summary>The value, boxed, as the C# type listed for <see cref="Type"/> in <see cref="FieldValueType"/>.
    /// For 'S' it is a <see cref="string"/>, or a <see cref="T:byte[]"/> when the wire bytes were not valid UTF-8.
    /// Never mutate a byte array obtained from here.</summary>
    public object? Value { get; }

    /// <summary>The void value ('V').</summary>
    public static FieldValue Void => new(FieldValueType.Void, null);

    /// <summary>A 't' value.</summary>
    public static FieldValue Boolean(bool value) => new(FieldValueType.Boolean, value);

    /// <summary>A 'b' value.</summary>
    public static FieldValue Int8(sbyte value) => new(FieldValueType.Int8, value);

    /// <summary>A 'B' value.</summary>
    public static FieldValue UInt8(byte value) => new(FieldValueType.UInt8, value);

    /// <summary>An 's' value.</summary>
    public static FieldValue Int16(short value) => new(FieldValueType.Int16, value);

    /// <summary>A 'u' value.</summary>
    public static FieldValue UInt16(ushort value) => new(FieldValueType.UInt16, value);

    /// <summary>An 'I' value.</summary>
    public static FieldValue Int32(int value) => new(FieldValueType.Int32, value);

    /// <summary>An 'i' value.</summary>
    public static FieldValue UInt32(uint value) => new(FieldValueType.UInt32, value);

    /// <summary>An 'l' value.</summary>
    public static FieldValue Int64(long value) => new(FieldValueType.Int64, value);

    /// <summary>An 'f' value.</summary>
    public static FieldValue Float32(float value) => new(FieldValueType.Float32, value);

    /// <summary>A 'd' value.</summary>
    public static FieldValue Float64(double value) => new(FieldValueType.Float64, value);

    /// <summary>A 'D' value.</summary>
    public static FieldValue Decimal(AmqpDecimal value) => new(FieldValueType.Decimal, value);

    /// <summary>A 'T' value.</summary>
    public static FieldValue Timestamp(AmqpTimestamp value) => new(FieldValueType.Timestamp, value);

    /// <summary>An 'S' value holding <paramref name="value"/> as UTF-8.</summary>
    public static FieldValue LongString(string value)
    {
        ArgumentNullException.ThrowIfNull(value);
        return new(FieldValueType.LongString, value);
    }

    /// <summary>An 'S' value holding exactly <paramref name="utf8"/> (copied). Valid UTF-8 is kept as a
    /// <see cref="string"/>, anything else as the raw bytes, so the wire bytes never change.</summary>
    public static FieldValue LongString(ReadOnlySpan<byte> utf8) =>
        Utf8.IsValid(utf8)
            ? new(FieldValueType.LongString, Encoding.UTF8.GetString(utf8))
            : new(FieldValueType.LongString, utf8.ToArray());

    /// <summary>An 'x' value holding a copy of <paramref name="bytes"/>.</summary>
    public static FieldValue ByteArray(ReadOnlySpan<byte> bytes) => new(FieldValueType.ByteArray, bytes.ToArray());

    /// <summary>An 'A' value.</summary>
    public static FieldValue Array(FieldArray value)
    {
        ArgumentNullException.ThrowIfNull(value);
        return new(FieldValueType.Array, value);
    }

    /// <summary>An 'F' value.</summary>
    public static FieldValue Table(FieldTable value)
    {
        ArgumentNullException.ThrowIfNull(value);
        return new(FieldValueType.Table, value);
    }

    /// <summary>
    /// Converts a loosely typed value (as RabbitMQ.Client's <c>IDictionary&lt;string, object?&gt;</c> holds them)
    /// to a field value: null → 'V'; a <see cref="FieldValue"/> as is; bool, sbyte, byte, short, ushort, int,
    /// uint, long, float, double, <see cref="AmqpDecimal"/>, <see cref="AmqpTimestamp"/>, string, byte[],
    /// <see cref="FieldTable"/>, <see cref="FieldArray"/> by their implicit conversion; <see cref="decimal"/> → 'D';
    /// <see cref="DateTime"/>/<see cref="DateTimeOffset"/> → 'T'; a string-keyed dictionary → 'F'; any other
    /// <see cref="IEnumerable"/> → 'A'.
    /// </summary>
    /// <exception cref="ArgumentException">The type has no AMQP field representation.</exception>
    public static FieldValue FromObject(object? value) =>
        value switch
        {
            null => Void,
            FieldValue v => v,
            bool v => v,
            sbyte v => v,
            byte v => v,
            short v => v,
            ushort v => v,
            int v => v,
            uint v => v,
            long v => v,
            float v => v,
            double v => v,
            AmqpDecimal v => v,
            decimal v => FromDecimal(v),
            AmqpTimestamp v => v,
            DateTimeOffset v => Timestamp(AmqpTimestamp.FromDateTimeOffset(v)),
            DateTime v => Timestamp(AmqpTimestamp.FromDateTimeOffset(new DateTimeOffset(v.ToUniversalTime()))),
            string v => v,
            byte[] v => v,
            ReadOnlyMemory<byte> v => ByteArray(v.Span),
            FieldTable v => v,
            FieldArray v => v,
            IEnumerable<KeyValuePair<string, object?>> v => FieldTable.FromObjects(v),
            IEnumerable v => new FieldArray(v.Cast<object?>().Select(FromObject)),
            _ => throw new ArgumentException(
                $"A {value.GetType()} has no AMQP field-table representation.",
                nameof(value)
            ),
        };

    private static FieldValue FromDecimal(decimal value)
    {
        Span<int> bits = stackalloc int[4];
        decimal.GetBits(value, bits);
        byte scale = (byte)((bits[3] >> 16) & 0xFF);
        if (bits[2] != 0 || bits[1] != 0 || (uint)bits[0] > int.MaxValue)
            throw new ArgumentException($"Decimal {value} does not fit AMQP's 32-bit unscaled value.", nameof(value));
        int unscaled = bits[3] < 0 ? -bits[0] : bits[0];
        return Decimal(new AmqpDecimal(scale, unscaled));
    }

    /// <summary>The 'S' value as a string (bytes that are not valid UTF-8 are decoded with replacement
    /// characters).</summary>
    /// <exception cref="InvalidOperationException">The value is not 'S'.</exception>
    public string AsString() =>
        Value switch
        {
            string s when Type == FieldValueType.LongString => s,
            byte[] b when Type == FieldValueType.LongString => Encoding.UTF8.GetString(b),
            _ => throw WrongType("a long string ('S')"),
        };

    /// <summary>The bytes of an 'x' or 'S' value (for 'S', its UTF-8 wire bytes).</summary>
    /// <exception cref="InvalidOperationException">The value is neither 'x' nor 'S'.</exception>
    public ReadOnlyMemory<byte> AsBytes() =>
        Value switch
        {
            byte[] b => b,
            string s when Type == FieldValueType.LongString => Encoding.UTF8.GetBytes(s),
            _ => throw WrongType("a byte array ('x') or long string ('S')"),
        };

    /// <summary>Any integer value ('b', 'B', 's', 'u', 'I', 'i', 'l') widened to <see cref="long"/>.</summary>
    /// <exception cref="InvalidOperationException">The value is not an integer.</exception>
    public long AsInt64() =>
        Value switch
        {
            sbyte v => v,
            byte v => v,
            short v => v,
            ushort v => v,
            int v => v,
            uint v => v,
            long v => v,
            _ => throw WrongType("an integer"),
        };

    /// <summary>A 'f' or 'd' value as <see cref="double"/>.</summary>
    /// <exception cref="InvalidOperationException">The value is not a floating-point number.</exception>
    public double AsDouble() =>
        Value switch
        {
            float v => v,
            double v => v,
            _ => throw WrongType("a float ('f' or 'd')"),
        };

    /// <summary>A 't' value.</summary>
    /// <exception cref="InvalidOperationException">The value is not 't'.</exception>
    public bool AsBoolean() => Value is bool b ? b : throw WrongType("a boolean ('t')");

    /// <summary>An 'F' value.</summary>
    /// <exception cref="InvalidOperationException">The value is not 'F'.</exception>
    public FieldTable AsTable() => Value as FieldTable ?? throw WrongType("a table ('F')");

    /// <summary>An 'A' value.</summary>
    /// <exception cref="InvalidOperationException">The value is not 'A'.</exception>
    public FieldArray AsArray() => Value as FieldArray ?? throw WrongType("an array ('A')");

    /// <summary>A 'T' value.</summary>
    /// <exception cref="InvalidOperationException">The value is not 'T'.</exception>
    public AmqpTimestamp AsTimestamp() => Value is AmqpTimestamp t ? t : throw WrongType("a timestamp ('T')");

    /// <summary>A 'D' value.</summary>
    /// <exception cref="InvalidOperationException">The value is not 'D'.</exception>
    public AmqpDecimal AsDecimal() => Value is AmqpDecimal d ? d : throw WrongType("a decimal ('D')");

    private InvalidOperationException WrongType(string wanted) =>
        new($"Field value is '{(char)Type}' ({Type}), not {wanted}.");

    /// <summary>Same tag and same wire value: byte arrays, tables and arrays compare by content, floats by
    /// their bits (so 0.0 and -0.0 differ, and NaN equals the same NaN).</summary>
    public bool Equals(FieldValue other)
    {
        if (Type != other.Type)
            return false;
        return (Value, other.Value) switch
        {
            (null, null) => true,
            (byte[] a, byte[] b) => a.AsSpan().SequenceEqual(b),
            (FieldTable a, FieldTable b) => a.Equals(b),
            (FieldArray a, FieldArray b) => a.Equals(b),
            (string a, byte[] b) => Encoding.UTF8.GetBytes(a).AsSpan().SequenceEqual(b),
            (byte[] a, string b) => a.AsSpan().SequenceEqual(Encoding.UTF8.GetBytes(b)),
            (float a, float b) => BitConverter.SingleToUInt32Bits(a) == BitConverter.SingleToUInt32Bits(b),
            (double a, double b) => BitConverter.DoubleToUInt64Bits(a) == BitConverter.DoubleToUInt64Bits(b),
            ({ } a, { } b) => a.Equals(b),
            _ => false,
        };
    }

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is FieldValue other && Equals(other);

    /// <inheritdoc/>
    public override int GetHashCode() =>
        Value switch
        {
            null => HashCode.Combine(Type),
            byte[] b => HashCode.Combine(Type, b.Length),
            string s => HashCode.Combine(Type, Encoding.UTF8.GetByteCount(s)),
            FieldTable t => HashCode.Combine(Type, t.Count),
            FieldArray a => HashCode.Combine(Type, a.Count),
            var v => HashCode.Combine(Type, v),
        };

    /// <summary>Equality of tag and value.</summary>
    public static bool operator ==(FieldValue left, FieldValue right) => left.Equals(right);

    /// <summary>Inequality of tag or value.</summary>
    public static bool operator !=(FieldValue left, FieldValue right) => !left.Equals(right);

    /// <summary>The tag and the value, e.g. <c>S:"direct"</c> or <c>I:5</c>.</summary>
    public override string ToString() =>
        Value switch
        {
            null => "V",
            string s => $"S:\"{s}\"",
            byte[] b => $"{(char)Type}:0x{Convert.ToHexString(b)}",
            IFormattable f => $"{(char)Type}:{f.ToString(null, CultureInfo.InvariantCulture)}",
            var v => $"{(char)Type}:{v}",
        };

    /// <summary>'t'.</summary>
    public static implicit operator FieldValue(bool value) => Boolean(value);

    /// <summary>'b'.</summary>
    public static implicit operator FieldValue(sbyte value) => Int8(value);

    /// <summary>'B'.</summary>
    public static implicit operator FieldValue(byte value) => UInt8(value);

    /// <summary>'s'.</summary>
    public static implicit operator FieldValue(short value) => Int16(value);

    /// <summary>'u'.</summary>
    public static implicit operator FieldValue(ushort value) => UInt16(value);

    /// <summary>'I'.</summary>
    public static implicit operator FieldValue(int value) => Int32(value);

    /// <summary>'i'.</summary>
    public static implicit operator FieldValue(uint value) => UInt32(value);

    /// <summary>'l'.</summary>
    public static implicit operator FieldValue(long value) => Int64(value);

    /// <summary>'f'.</summary>
    public static implicit operator FieldValue(float value) => Float32(value);

    /// <summary>'d'.</summary>
    public static implicit operator FieldValue(double value) => Float64(value);

    /// <summary>'D'.</summary>
    public static implicit operator FieldValue(AmqpDecimal value) => Decimal(value);

    /// <summary>'T'.</summary>
    public static implicit operator FieldValue(AmqpTimestamp value) => Timestamp(value);

    /// <summary>'S', or 'V' for null.</summary>
    public static implicit operator FieldValue(string? value) => value is null ? Void : LongString(value);

    /// <summary>'x' (a copy), or 'V' for null.</summary>
    public static implicit operator FieldValue(byte[]? value) => value is null ? Void : ByteArray(value);

    /// <summary>'F', or 'V' for null.</summary>
    public static implicit operator FieldValue(FieldTable? value) => value is null ? Void : Table(value);

    /// <summary>'A', or 'V' for null.</summary>
    public static implicit operator FieldValue(FieldArray? value) => value is null ? Void : Array(value);

    /// <summary>Creates a value from a tag and an already typed value; used by the decoder.</summary>
    internal static FieldValue FromDecoded(FieldValueType type, object? value) => new(type, value);
}
