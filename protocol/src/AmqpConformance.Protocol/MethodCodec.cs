using System.Buffers;
using System.Buffers.Binary;

namespace AmqpConformance.Protocol;

/// <summary>
/// Decodes and encodes method-frame payloads: class id (short), method id (short), then the method's
/// arguments. No frame header or frame-end octet; see <see cref="FrameWriterExtensions"/> for whole frames.
/// </summary>
public static partial class MethodCodec
{
    /// <summary>Bytes taken by the class and method ids at the start of every method payload.</summary>
    public const int IdsLength = 4;

    /// <summary>Reads the class and method ids at the start of a method payload without decoding the rest.</summary>
    /// <returns>False if <paramref name="payload"/> is shorter than 4 bytes.</returns>
    public static bool TryReadIds(ReadOnlySpan<byte> payload, out ushort classId, out ushort methodId)
    {
        if (payload.Length < IdsLength)
        {
            classId = methodId = 0;
            return false;
        }
        classId = BinaryPrimitives.ReadUInt16BigEndian(payload);
        methodId = BinaryPrimitives.ReadUInt16BigEndian(payload[2..]);
        return true;
    }

    /// <summary>Decodes a whole method payload into its record (e.g. <see cref="BasicPublish"/>).</summary>
    /// <exception cref="AmqpDecodeException">Unknown ids, arguments cut short, bytes left over after the
    /// last argument, an unknown field-table tag, or a string that is not valid UTF-8.</exception>
    public static IAmqpMethod Decode(ReadOnlySpan<byte> payload)
    {
        if (!TryReadIds(payload, out ushort classId, out ushort methodId))
            throw new AmqpDecodeException(
                $"Method payload of {payload.Length} byte(s) is too short to hold class and method ids",
                0
            );
        var reader = new AmqpReader(payload[IdsLength..], IdsLength);
        var method = ReadArguments(classId, methodId, ref reader);
        reader.EnsureEnd($"the arguments of {method.Name}");
        return method;
    }

    /// <summary>Decodes a method payload held in a (possibly multi-segment) sequence.</summary>
    /// <exception cref="AmqpDecodeException">As for the span overload.</exception>
    public static IAmqpMethod Decode(in ReadOnlySequence<byte> payload)
    {
        if (payload.IsSingleSegment)
            return Decode(payload.FirstSpan);
        if (payload.Length <= 512)
        {
            Span<byte> copy = stackalloc byte[(int)payload.Length];
            payload.CopyTo(copy);
            return Decode(copy);
        }
        byte[] rented = ArrayPool<byte>.Shared.Rent((int)payload.Length);
        try
        {
            payload.CopyTo(rented);
            return Decode(rented.AsSpan(0, (int)payload.Length));
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(rented);
        }
    }

    /// <summary>Writes the method payload (ids and arguments) to <paramref name="output"/>.</summary>
    /// <exception cref="ArgumentException">A short string argument is longer than 255 bytes, or
    /// <paramref name="method"/> is not one of this library's method records.</exception>
    public static void Encode(IAmqpMethod method, IBufferWriter<byte> output)
    {
        var writer = new AmqpWriter(output);
        Write(method, ref writer);
    }

    /// <summary>Writes the method payload into <paramref name="destination"/>, which must hold
    /// <see cref="EncodedLength"/> bytes; returns the number of bytes written.</summary>
    public static int Encode(IAmqpMethod method, Span<byte> destination)
    {
        var writer = new AmqpWriter(destination);
        Write(method, ref writer);
        return writer.BytesWritten;
    }

    /// <summary>Length of the method payload (ids and arguments), computed without allocating.</summary>
    /// <exception cref="ArgumentException">As for <see cref="Encode(IAmqpMethod, IBufferWriter{byte})"/>.</exception>
    public static int EncodedLength(IAmqpMethod method)
    {
        var writer = AmqpWriter.Measuring();
        Write(method, ref writer);
        return writer.BytesWritten;
    }

    /// <summary>The method payload as a new array.</summary>
    public static byte[] ToPayload(IAmqpMethod method)
    {
        var payload = new byte[EncodedLength(method)];
        Encode(method, payload);
        return payload;
    }

    /// <summary>Writes ids and arguments through <paramref name="writer"/>.</summary>
    public static void Write(IAmqpMethod method, ref AmqpWriter writer)
    {
        ArgumentNullException.ThrowIfNull(method);
        if (method is not AmqpMethod known)
            throw new ArgumentException(
                $"{method.GetType()} is not one of the AmqpConformance method records; only those can be encoded.",
                nameof(method)
            );
        writer.WriteShort(known.ClassId);
        writer.WriteShort(known.MethodId);
        known.WriteArguments(ref writer);
    }

    private static AmqpDecodeException UnknownMethod(ushort classId, ushort methodId) =>
        new($"Unknown method: class id {classId}, method id {methodId} is not an AMQP 0-9-1 (RabbitMQ) method", 0);
}
