using System.Text;

namespace AmqpConformance.Protocol;

/// <summary>Sizes of encoded field tables and arrays, without encoding them.</summary>
internal static class FieldEncoding
{
    /// <summary>Bytes of a table after its 32-bit length prefix.</summary>
    public static int TableContentSize(FieldTable table)
    {
        long size = 0;
        foreach (var entry in table)
            size += 1 + AmqpWriter.ShortStringLength(entry.Key) + ValueSize(entry.Value);
        return CheckedSize(size);
    }

    /// <summary>Bytes of an array after its 32-bit length prefix.</summary>
    public static int ArrayContentSize(FieldArray array)
    {
        long size = 0;
        foreach (var value in array.AsSpan())
            size += ValueSize(value);
        return CheckedSize(size);
    }

    /// <summary>Bytes of one tagged value, tag included.</summary>
    public static long ValueSize(FieldValue value) =>
        1
        + value.Type switch
        {
            FieldValueType.Boolean or FieldValueType.Int8 or FieldValueType.UInt8 => 1,
            FieldValueType.Int16 or FieldValueType.UInt16 => 2,
            FieldValueType.Int32 or FieldValueType.UInt32 or FieldValueType.Float32 => 4,
            FieldValueType.Int64 or FieldValueType.Float64 or FieldValueType.Timestamp => 8,
            FieldValueType.Decimal => 5,
            FieldValueType.LongString => 4L
                + (value.Value is string s ? Encoding.UTF8.GetByteCount(s) : ((byte[])value.Value!).Length),
            FieldValueType.ByteArray => 4L + ((byte[])value.Value!).Length,
            FieldValueType.Array => 4L + ArrayContentSize((FieldArray)value.Value!),
            FieldValueType.Table => 4L + TableContentSize((FieldTable)value.Value!),
            FieldValueType.Void => 0,
            _ => throw new ArgumentException($"Field value type {value.Type} cannot be encoded.", nameof(value)),
        };

    private static int CheckedSize(long size) =>
        size > int.MaxValue
            ? throw new ArgumentException($"Field table or array of {size} bytes exceeds 2 GiB.")
            : (int)size;
}
