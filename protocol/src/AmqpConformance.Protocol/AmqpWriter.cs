using System.Buffers;
using System.Buffers.Binary;
using System.Text;

namespace AmqpConformance.Protocol;

/// <summary>
/// Writes AMQP 0-9-1 primitive types (big-endian) into an <see cref="IBufferWriter{T}"/>, into a fixed
/// <see cref="Span{T}"/>, or nowhere (<see cref="Measuring"/>: it only counts the bytes it would write).
/// Never allocates.
/// </summary>
/// <remarks>
/// Consecutive <see cref="WriteBit"/> calls share one octet (first bit in the least significant position,
/// up to eight per octet), as the spec packs bit arguments; the octet goes out before the next non-bit
/// value or at <see cref="Flush"/>. Call <see cref="Flush"/> after the last argument.
/// Strings are UTF-8; a short string longer than 255 bytes throws <see cref="ArgumentException"/>
/// (nothing of it is written).
/// </remarks>
public ref struct AmqpWriter
{
    private readonly IBufferWriter<byte>? _output;
    private readonly Span<byte> _destination;
    private readonly bool _measuring;
    private int _written;
    private byte _bitOctet;
    private int _bitCount;

    /// <summary>A writer that appends to <paramref name="output"/>.</summary>
    public AmqpWriter(IBufferWriter<byte> output)
    {
        ArgumentNullException.ThrowIfNull(output);
        _output = output;
    }

    /// <summary>A writer that fills <paramref name="destination"/> from its start; writing past its end throws
    /// <see cref="InvalidOperationException"/>.</summary>
    public AmqpWriter(Span<byte> destination) => _destination = destination;

    private AmqpWriter(bool measuring) => _measuring = measuring;

    /// <summary>A writer that writes nothing and only counts (<see cref="BytesWritten"/>), to size a buffer
    /// first.</summary>
    public static AmqpWriter Measuring() => new(measuring: true);

    /// <summary>Bytes written (or counted) so far, not including pending bits not yet flushed.</summary>
    public readonly int BytesWritten => _written;

    /// <summary>Writes an octet.</summary>
    public void WriteOctet(byte value)
    {
        if (Begin(1, out var span))
        {
            span[0] = value;
            Commit(1);
        }
    }

    /// <summary>Writes a short (unsigned 16-bit).</summary>
    public void WriteShort(ushort value)
    {
        if (Begin(2, out var span))
        {
            BinaryPrimitives.WriteUInt16BigEndian(span, value);
            Commit(2);
        }
    }

    /// <summary>Writes a long (unsigned 32-bit).</summary>
    public void WriteLong(uint value)
    {
        if (Begin(4, out var span))
        {
            BinaryPrimitives.WriteUInt32BigEndian(span, value);
            Commit(4);
        }
    }

    /// <summary>Writes a longlong (unsigned 64-bit).</summary>
    public void WriteLongLong(ulong value)
    {
        if (Begin(8, out var span))
        {
            BinaryPrimitives.WriteUInt64BigEndian(span, value);
            Commit(8);
        }
    }

    /// <summary>Writes a timestamp (64-bit seconds).</summary>
    public void WriteTimestamp(AmqpTimestamp value) => WriteLongLong(value.UnixSeconds);

    /// <summary>Writes one bit argument; see the type's remarks on packing.</summary>
    public void WriteBit(bool value)
    {
        if (_bitCount == 8)
            FlushBits();
        if (value)
            _bitOctet |= (byte)(1 << _bitCount);
        _bitCount++;
    }

    /// <summary>Writes out pending bits, if any. Call after the last argument.</summary>
    public void Flush() => FlushBits();

    /// <summary>Writes a short string: length octet + UTF-8 bytes.</summary>
    /// <exception cref="ArgumentException">The string is longer than 255 bytes in UTF-8.</exception>
    public void WriteShortString(string value)
    {
        ArgumentNullException.ThrowIfNull(value);
        int length = ShortStringLength(value);
        if (Begin(1 + length, out var span))
        {
            span[0] = (byte)length;
            Encoding.UTF8.GetBytes(value, span[1..]);
            Commit(1 + length);
        }
    }

    /// <summary>Writes a long string: 32-bit length + UTF-8 bytes.</summary>
    public void WriteLongString(string value)
    {
        ArgumentNullException.ThrowIfNull(value);
        int length = Encoding.UTF8.GetByteCount(value);
        if (Begin(4 + length, out var span))
        {
            BinaryPrimitives.WriteUInt32BigEndian(span, (uint)length);
            Encoding.UTF8.GetBytes(value, span[4..]);
            Commit(4 + length);
        }
    }

    /// <summary>Writes a long string of raw bytes: 32-bit length + the bytes.</summary>
    public void WriteLongString(ReadOnlySpan<byte> value)
    {
        if (Begin(4 + value.Length, out var span))
        {
            BinaryPrimitives.WriteUInt32BigEndian(span, (uint)value.Length);
            value.CopyTo(span[4..]);
            Commit(4 + value.Length);
        }
    }

    /// <summary>Writes a field table: 32-bit byte length, then each entry as short-string key, tag octet,
    /// value.</summary>
    /// <exception cref="ArgumentException">A key is longer than 255 bytes in UTF-8.</exception>
    public void WriteFieldTable(FieldTable table)
    {
        ArgumentNullException.ThrowIfNull(table);
        int size = FieldEncoding.TableContentSize(table);
        if (_measuring)
        {
            FlushBits();
            _written += 4 + size;
            return;
        }
        WriteLong((uint)size);
        foreach (var entry in table)
        {
            WriteShortString(entry.Key);
            WriteFieldValue(entry.Value);
        }
    }

    /// <summary>Writes a field array: 32-bit byte length, then each value as tag octet + value.</summary>
    public void WriteFieldArray(FieldArray array)
    {
        ArgumentNullException.ThrowIfNull(array);
        int size = FieldEncoding.ArrayContentSize(array);
        if (_measuring)
        {
            FlushBits();
            _written += 4 + size;
            return;
        }
        WriteLong((uint)size);
        foreach (var value in array.AsSpan())
            WriteFieldValue(value);
    }

    /// <summary>Writes one tagged value: the tag octet, then the value as its tag says.</summary>
    public void WriteFieldValue(FieldValue value)
    {
        WriteOctet((byte)value.Type);
        switch (value.Type)
        {
            case FieldValueType.Boolean:
                WriteOctet((bool)value.Value! ? (byte)1 : (byte)0);
                break;
            case FieldValueType.Int8:
                WriteOctet((byte)(sbyte)value.Value!);
                break;
            case FieldValueType.UInt8:
                WriteOctet((byte)value.Value!);
                break;
            case FieldValueType.Int16:
                WriteShort((ushort)(short)value.Value!);
                break;
            case FieldValueType.UInt16:
                WriteShort((ushort)value.Value!);
                break;
            case FieldValueType.Int32:
                WriteLong((uint)(int)value.Value!);
                break;
            case FieldValueType.UInt32:
                WriteLong((uint)value.Value!);
                break;
            case FieldValueType.Int64:
                WriteLongLong((ulong)(long)value.Value!);
                break;
            case FieldValueType.Float32:
                WriteLong(BitConverter.SingleToUInt32Bits((float)value.Value!));
                break;
            case FieldValueType.Float64:
                WriteLongLong(BitConverter.DoubleToUInt64Bits((double)value.Value!));
                break;
            case FieldValueType.Decimal:
                var d = (AmqpDecimal)value.Value!;
                WriteOctet(d.Scale);
                WriteLong((uint)d.Value);
                break;
            case FieldValueType.LongString:
                if (value.Value is string s)
                    WriteLongString(s);
                else
                    WriteLongString((byte[])value.Value!);
                break;
            case FieldValueType.ByteArray:
                WriteLongString((byte[])value.Value!);
                break;
            case FieldValueType.Array:
                WriteFieldArray((FieldArray)value.Value!);
                break;
            case FieldValueType.Timestamp:
                WriteTimestamp((AmqpTimestamp)value.Value!);
                break;
            case FieldValueType.Table:
                WriteFieldTable((FieldTable)value.Value!);
                break;
            case FieldValueType.Void:
                break;
            default:
                throw new ArgumentException($"Field value type {value.Type} cannot be encoded.", nameof(value));
        }
    }

    /// <summary>UTF-8 length of a short string, checked against the 255-byte limit.</summary>
    internal static int ShortStringLength(string value)
    {
        int length = Encoding.UTF8.GetByteCount(value);
        if (length > 255)
            throw new ArgumentException(
                $"A short string may hold at most 255 bytes of UTF-8; this one has {length} (\"{value[..Math.Min(value.Length, 40)]}...\").",
                nameof(value)
            );
        return length;
    }

    private bool Begin(int size, out Span<byte> span)
    {
        FlushBits();
        return Reserve(size, out span);
    }

    private bool Reserve(int size, out Span<byte> span)
    {
        if (_measuring)
        {
            _written += size;
            span = default;
            return false;
        }
        if (_output is not null)
        {
            span = _output.GetSpan(size);
            return true;
        }
        if (_destination.Length - _written < size)
            throw new InvalidOperationException(
                $"AmqpWriter destination of {_destination.Length} bytes is too small: {_written} written, {size} more needed."
            );
        span = _destination[_written..];
        return true;
    }

    private void Commit(int size)
    {
        _output?.Advance(size);
        _written += size;
    }

    private void FlushBits()
    {
        if (_bitCount == 0)
            return;
        byte octet = _bitOctet;
        _bitOctet = 0;
        _bitCount = 0;
        if (Reserve(1, out var span))
        {
            span[0] = octet;
            Commit(1);
        }
    }
}
