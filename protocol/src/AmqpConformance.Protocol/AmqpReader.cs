using System.Buffers.Binary;
using System.Text;

namespace AmqpConformance.Protocol;

/// <summary>
/// Reads AMQP 0-9-1 primitive types (big-endian) from a span. Every read checks the remaining length and
/// throws <see cref="AmqpDecodeException"/> naming what was being read and its offset; nothing is read
/// past the span. Consecutive <see cref="ReadBit"/> calls take bits from one octet (least significant
/// first, up to eight); any other read starts afresh.
/// </summary>
public ref struct AmqpReader
{
    /// <summary>How deeply tables and arrays may nest before the input is rejected (protects the stack).</summary>
    public const int MaxNestingDepth = 64;

    private static readonly UTF8Encoding StrictUtf8 = new(
        encoderShouldEmitUTF8Identifier: false,
        throwOnInvalidBytes: true
    );

    private readonly ReadOnlySpan<byte> _data;
    private readonly int _baseOffset;
    private readonly int _depth;
    private int _position;
    private byte _bitOctet;
    private int _bitIndex;

    /// <summary>A reader over <paramref name="data"/>; <paramref name="baseOffset"/> is added to offsets in errors
    /// (the position of <paramref name="data"/> within the payload being decoded).</summary>
    public AmqpReader(ReadOnlySpan<byte> data, int baseOffset = 0)
        : this(data, baseOffset, 0) { }

    private AmqpReader(ReadOnlySpan<byte> data, int baseOffset, int depth)
    {
        _data = data;
        _baseOffset = baseOffset;
        _depth = depth;
        _bitIndex = 8;
    }

    /// <summary>Bytes consumed so far.</summary>
    public readonly int Position => _position;

    /// <summary>Bytes not yet consumed.</summary>
    public readonly int Remaining => _data.Length - _position;

    /// <summary>Offset of the next byte within the whole decoded payload (for error messages).</summary>
    public readonly int Offset => _baseOffset + _position;

    /// <summary>Reads an octet.</summary>
    public byte ReadOctet(string what = "octet") => Take(1, what)[0];

    /// <summary>Reads a short (unsigned 16-bit).</summary>
    public ushort ReadShort(string what = "short") => BinaryPrimitives.ReadUInt16BigEndian(Take(2, what));

    /// <summary>Reads a long (unsigned 32-bit).</summary>
    public uint ReadLong(string what = "long") => BinaryPrimitives.ReadUInt32BigEndian(Take(4, what));

    /// <summary>Reads a longlong (unsigned 64-bit).</summary>
    public ulong ReadLongLong(string what = "longlong") => BinaryPrimitives.ReadUInt64BigEndian(Take(8, what));

    /// <summary>Reads a timestamp (64-bit seconds).</summary>
    public AmqpTimestamp ReadTimestamp(string what = "timestamp") => new(ReadLongLong(what));

    /// <summary>Reads one bit argument; see the type's summary on packing.</summary>
    public bool ReadBit(string what = "bit")
    {
        if (_bitIndex >= 8)
        {
            _bitOctet = Take(1, what)[0];
            _bitIndex = 0;
        }
        return (_bitOctet & (1 << _bitIndex++)) != 0;
    }

    /// <summary>Reads a short string and decodes it as UTF-8.</summary>
    /// <exception cref="AmqpDecodeException">Truncated, or not valid UTF-8.</exception>
    public string ReadShortString(string what = "shortstr")
    {
        int start = Offset;
        int length = Take(1, what)[0];
        return DecodeUtf8(Take(length, what), what, start);
    }

    /// <summary>Reads a long string and decodes it as UTF-8.</summary>
    /// <exception cref="AmqpDecodeException">Truncated, or not valid UTF-8.</exception>
    public string ReadLongString(string what = "longstr")
    {
        int start = Offset;
        return DecodeUtf8(ReadLongStringSpan(what), what, start);
    }

    /// <summary>Reads a long string as raw bytes; the span points into the input.</summary>
    public ReadOnlySpan<byte> ReadLongStringSpan(string what = "longstr")
    {
        int start = Offset;
        uint length = ReadLong(what);
        if (length > (uint)Remaining)
            throw new AmqpDecodeException(
                $"Truncated {what}: its length says {length} bytes but only {Remaining} remain",
                start
            );
        return Take((int)length, what);
    }

    /// <summary>Reads a field table (RabbitMQ's tag set; see <see cref="FieldValueType"/>).</summary>
    /// <exception cref="AmqpDecodeException">Truncated, an unknown tag, a bad key, or nested too deeply.</exception>
    public FieldTable ReadFieldTable(string what = "field table")
    {
        int start = Offset;
        var content = new AmqpReader(ReadLongStringSpan(what), start + 4, _depth + 1);
        content.CheckDepth(what, start);
        var entries = new List<KeyValuePair<string, FieldValue>>();
        while (content.Remaining > 0)
        {
            string key = content.ReadShortString("field table key");
            entries.Add(KeyValuePair.Create(key, content.ReadFieldValue("field table value")));
        }
        return new FieldTable(entries);
    }

    /// <summary>Reads a field array.</summary>
    /// <exception cref="AmqpDecodeException">Truncated, an unknown tag, or nested too deeply.</exception>
    public FieldArray ReadFieldArray(string what = "field array")
    {
        int start = Offset;
        var content = new AmqpReader(ReadLongStringSpan(what), start + 4, _depth + 1);
        content.CheckDepth(what, start);
        var values = new List<FieldValue>();
        while (content.Remaining > 0)
            values.Add(content.ReadFieldValue("field array element"));
        return new FieldArray(values);
    }

    /// <summary>Reads one tagged value: a tag octet, then the value as the tag says.</summary>
    /// <exception cref="AmqpDecodeException">Truncated or an unknown tag.</exception>
    public FieldValue ReadFieldValue(string what = "field value")
    {
        int tagOffset = Offset;
        byte tag = ReadOctet("field type tag");
        return (FieldValueType)tag switch
        {
            FieldValueType.Boolean => FieldValue.Boolean(ReadOctet(what) != 0),
            FieldValueType.Int8 => FieldValue.Int8((sbyte)ReadOctet(what)),
            FieldValueType.UInt8 => FieldValue.UInt8(ReadOctet(what)),
            FieldValueType.Int16 => FieldValue.Int16((short)ReadShort(what)),
            FieldValueType.UInt16 => FieldValue.UInt16(ReadShort(what)),
            FieldValueType.Int32 => FieldValue.Int32((int)ReadLong(what)),
            FieldValueType.UInt32 => FieldValue.UInt32(ReadLong(what)),
            FieldValueType.Int64 => FieldValue.Int64((long)ReadLongLong(what)),
            FieldValueType.Float32 => FieldValue.Float32(BitConverter.UInt32BitsToSingle(ReadLong(what))),
            FieldValueType.Float64 => FieldValue.Float64(BitConverter.UInt64BitsToDouble(ReadLongLong(what))),
            FieldValueType.Decimal => FieldValue.Decimal(new AmqpDecimal(ReadOctet(what), (int)ReadLong(what))),
            FieldValueType.LongString => FieldValue.LongString(ReadLongStringSpan(what)),
            FieldValueType.ByteArray => FieldValue.ByteArray(ReadLongStringSpan(what)),
            FieldValueType.Array => FieldValue.Array(ReadFieldArray(what)),
            FieldValueType.Timestamp => FieldValue.Timestamp(ReadTimestamp(what)),
            FieldValueType.Table => FieldValue.Table(ReadFieldTable(what)),
            FieldValueType.Void => FieldValue.Void,
            _ => throw new AmqpDecodeException(
                $"Unknown field type tag 0x{tag:X2}{(tag is >= 0x20 and < 0x7F ? $" ('{(char)tag}')" : "")} in {what}",
                tagOffset
            ),
        };
    }

    /// <summary>Throws unless every byte has been consumed.</summary>
    /// <exception cref="AmqpDecodeException">Bytes remain.</exception>
    public readonly void EnsureEnd(string what)
    {
        if (Remaining != 0)
            throw new AmqpDecodeException($"{Remaining} unexpected trailing byte(s) after {what}", Offset);
    }

    private ReadOnlySpan<byte> Take(int count, string what)
    {
        _bitIndex = 8;
        if (Remaining < count)
            throw new AmqpDecodeException(
                $"Truncated {what}: needs {count} byte(s) but only {Remaining} remain",
                Offset
            );
        var span = _data.Slice(_position, count);
        _position += count;
        return span;
    }

    private readonly void CheckDepth(string what, int offset)
    {
        if (_depth > MaxNestingDepth)
            throw new AmqpDecodeException($"{what} nests tables/arrays deeper than {MaxNestingDepth} levels", offset);
    }

    private static string DecodeUtf8(ReadOnlySpan<byte> bytes, string what, int offset)
    {
        try
        {
            return StrictUtf8.GetString(bytes);
        }
        catch (DecoderFallbackException e)
        {
            throw new AmqpDecodeException($"{what} is not valid UTF-8", offset, e);
        }
    }
}
