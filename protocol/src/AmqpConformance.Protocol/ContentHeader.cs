using System.Buffers;

namespace AmqpConformance.Protocol;

/// <summary>
/// A content header frame's payload: class id (60, basic), weight (0), body size, property flags and
/// properties. Only the basic class has content in AMQP 0-9-1, so only its properties are understood.
/// </summary>
/// <param name="ClassId">The content class; 60 (basic).</param>
/// <param name="Weight">Unused; 0.</param>
/// <param name="BodySize">Total bytes of the body frames that follow.</param>
/// <param name="Properties">The content properties.</param>
public sealed record ContentHeader(ushort ClassId, ushort Weight, ulong BodySize, BasicProperties Properties)
{
    /// <summary>A basic-class header with weight 0.</summary>
    public ContentHeader(ulong bodySize, BasicProperties? properties = null)
        : this(AmqpConstants.BasicClassId, 0, bodySize, properties ?? BasicProperties.Empty) { }

    /// <summary>Decodes a content header payload.</summary>
    /// <exception cref="AmqpDecodeException">Cut short, trailing bytes, a class other than basic, or a property
    /// flags word with the continuation bit (bit 0) set, which this codec does not support.</exception>
    public static ContentHeader Decode(ReadOnlySpan<byte> payload)
    {
        var reader = new AmqpReader(payload);
        ushort classId = reader.ReadShort("class-id");
        if (classId != AmqpConstants.BasicClassId)
            throw new AmqpDecodeException(
                $"Content header for class {classId}: only the basic class ({AmqpConstants.BasicClassId}) carries content",
                0
            );
        ushort weight = reader.ReadShort("weight");
        ulong bodySize = reader.ReadLongLong("body-size");
        var properties = BasicProperties.Read(ref reader);
        reader.EnsureEnd("the content properties");
        return new ContentHeader(classId, weight, bodySize, properties);
    }

    /// <summary>Decodes a content header payload held in a (possibly multi-segment) sequence.</summary>
    public static ContentHeader Decode(in ReadOnlySequence<byte> payload) =>
        payload.IsSingleSegment ? Decode(payload.FirstSpan) : Decode(payload.ToArray());

    /// <summary>Writes the payload (no frame header) to <paramref name="output"/>.</summary>
    /// <exception cref="ArgumentException">A short-string property is longer than 255 bytes.</exception>
    public void Encode(IBufferWriter<byte> output)
    {
        var writer = new AmqpWriter(output);
        Write(ref writer);
    }

    /// <summary>Writes the payload into <paramref name="destination"/>; returns the bytes written.</summary>
    public int Encode(Span<byte> destination)
    {
        var writer = new AmqpWriter(destination);
        Write(ref writer);
        return writer.BytesWritten;
    }

    /// <summary>Length of the payload, computed without allocating.</summary>
    public int EncodedLength()
    {
        var writer = AmqpWriter.Measuring();
        Write(ref writer);
        return writer.BytesWritten;
    }

    internal void Write(ref AmqpWriter writer)
    {
        writer.WriteShort(ClassId);
        writer.WriteShort(Weight);
        writer.WriteLongLong(BodySize);
        (Properties ?? BasicProperties.Empty).Write(ref writer);
    }
}
