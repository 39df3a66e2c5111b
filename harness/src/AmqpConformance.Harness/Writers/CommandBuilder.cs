using System.Buffers;
using AmqpConformance.Protocol;

namespace AmqpConformance.Harness.Writers;

/// <summary>
/// Turns a method (plus, for content methods, properties and a body) into an <see cref="OutgoingCommand"/>:
/// the method frame and the content header frame serialized into one buffer rented from the given pool;
/// the body is not copied.
/// </summary>
/// <remarks>
/// Sizes are measured first and checked against frame_max before anything is rented, so a failed build
/// rents nothing; should serialization fail anyway, the rental is returned before the exception leaves.
/// Nothing is allocated besides the rental. On an exception the caller keeps ownership of the body and
/// its owner; on success they travel in the returned command (see <see cref="OutgoingCommand"/>).
/// </remarks>
public static class CommandBuilder
{
    /// <summary>Builds a command for <paramref name="method"/> on <paramref name="channel"/>.</summary>
    /// <param name="pool">Where the frames buffer is rented from; the command's writer returns it there.</param>
    /// <param name="frameMax">Negotiated frame_max (0 = unlimited); no frame of the command may exceed it.</param>
    /// <param name="channel">The channel of every frame.</param>
    /// <param name="method">The method. If <see cref="IAmqpMethod.HasContent"/>, a content header
    /// (class 60, body size = <paramref name="body"/>.Length) follows it in the buffer.</param>
    /// <param name="properties">Content properties (content methods only; null = none).</param>
    /// <param name="body">The body (content methods only), referenced, not copied.</param>
    /// <param name="bodyOwner">Optional owner of <paramref name="body"/>'s memory, handed to the command.</param>
    /// <exception cref="ArgumentException">The method or header frame would exceed <paramref name="frameMax"/>;
    /// a body or properties were given for a method without content; a short string is too long; or the
    /// method is not one of this library's records.</exception>
    public static OutgoingCommand Build(
        ArrayPool<byte> pool,
        int frameMax,
        ushort channel,
        IAmqpMethod method,
        BasicProperties? properties = null,
        ReadOnlyMemory<byte> body = default,
        IDisposable? bodyOwner = null
    )
    {
        ArgumentNullException.ThrowIfNull(method);
        return BuildCore(pool, frameMax, channel, new RecordMethod(method), properties, body, bodyOwner);
    }

    /// <summary>Builds a basic.publish command (ticket 0, immediate false) without allocating a method
    /// record.</summary>
    /// <exception cref="ArgumentException">As for <see cref="Build"/>.</exception>
    public static OutgoingCommand BuildPublish(
        ArrayPool<byte> pool,
        int frameMax,
        ushort channel,
        string exchange,
        string routingKey,
        bool mandatory,
        BasicProperties? properties,
        ReadOnlyMemory<byte> body,
        IDisposable? bodyOwner = null
    )
    {
        ArgumentNullException.ThrowIfNull(exchange);
        ArgumentNullException.ThrowIfNull(routingKey);
        return BuildCore(
            pool,
            frameMax,
            channel,
            new PublishMethod(exchange, routingKey, mandatory),
            properties,
            body,
            bodyOwner
        );
    }

    private static OutgoingCommand BuildCore<TMethod>(
        ArrayPool<byte> pool,
        int frameMax,
        ushort channel,
        TMethod method,
        BasicProperties? properties,
        ReadOnlyMemory<byte> body,
        IDisposable? bodyOwner
    )
        where TMethod : struct, IMethodSerializer
    {
        ArgumentNullException.ThrowIfNull(pool);
        ArgumentOutOfRangeException.ThrowIfNegative(frameMax);
        bool hasContent = method.HasContent;
        if (!hasContent && !body.IsEmpty)
            throw new ArgumentException(
                $"{method.Name} carries no content, so it cannot have a body ({body.Length} bytes given).",
                nameof(body)
            );
        if (!hasContent && properties is not null)
            throw new ArgumentException(
                $"{method.Name} carries no content, so it cannot have content properties.",
                nameof(properties)
            );

        var measure = AmqpWriter.Measuring();
        method.Write(ref measure);
        int methodPayload = measure.BytesWritten;
        CheckFrameSize("method", method.Name, methodPayload, frameMax);
        long total = (long)methodPayload + AmqpConstants.FrameOverhead;

        int headerPayload = 0;
        if (hasContent)
        {
            measure = AmqpWriter.Measuring();
            WriteContentHeader(ref measure, body.Length, properties);
            headerPayload = measure.BytesWritten;
            CheckFrameSize("content header", method.Name, headerPayload, frameMax);
            total += headerPayload + AmqpConstants.FrameOverhead;
        }
        if (total > Array.MaxLength)
            throw new ArgumentException(
                $"{method.Name} frames would take {total} bytes, more than one array can hold.",
                nameof(method)
            );

        byte[] rented = pool.Rent((int)total);
        try
        {
            Span<byte> span = rented.AsSpan(0, (int)total);
            FrameFormat.WriteHeader(span, FrameType.Method, channel, methodPayload);
            var writer = new AmqpWriter(span.Slice(AmqpConstants.FrameHeaderSize, methodPayload));
            method.Write(ref writer);
            int offset = AmqpConstants.FrameHeaderSize + methodPayload;
            span[offset++] = AmqpConstants.FrameEnd;
            if (hasContent)
            {
                FrameFormat.WriteHeader(span[offset..], FrameType.Header, channel, headerPayload);
                offset += AmqpConstants.FrameHeaderSize;
                writer = new AmqpWriter(span.Slice(offset, headerPayload));
                WriteContentHeader(ref writer, body.Length, properties);
                offset += headerPayload;
                span[offset] = AmqpConstants.FrameEnd;
            }
        }
        catch
        {
            pool.Return(rented);
            throw;
        }
        return new OutgoingCommand(channel, rented, (int)total, hasContent, body, bodyOwner);
    }

    private static void CheckFrameSize(string what, string methodName, int payload, int frameMax)
    {
        if (frameMax != 0 && (long)payload + AmqpConstants.FrameOverhead > frameMax)
            throw new ArgumentException(
                $"The {what} frame of {methodName} would be {payload + (long)AmqpConstants.FrameOverhead} bytes, "
                    + $"more than frame_max {frameMax}; AMQP cannot split {what} frames.",
                what == "method" ? "method" : "properties"
            );
    }

    private static void WriteContentHeader(ref AmqpWriter writer, int bodyLength, BasicProperties? properties)
    {
        writer.WriteShort(AmqpConstants.BasicClassId);
        writer.WriteShort(0);
        writer.WriteLongLong((ulong)bodyLength);
        (properties ?? BasicProperties.Empty).Write(ref writer);
    }

    private interface IMethodSerializer
    {
        bool HasContent { get; }
        string Name { get; }
        void Write(ref AmqpWriter writer);
    }

    private readonly struct RecordMethod(IAmqpMethod method) : IMethodSerializer
    {
        public bool HasContent => method.HasContent;
        public string Name => method.Name;

        public void Write(ref AmqpWriter writer) => MethodCodec.Write(method, ref writer);
    }

    private readonly struct PublishMethod(string exchange, string routingKey, bool mandatory) : IMethodSerializer
    {
        public bool HasContent => true;
        public string Name => "basic.publish";

        public void Write(ref AmqpWriter writer)
        {
            writer.WriteShort(BasicPublish.ClassIdValue);
            writer.WriteShort(BasicPublish.MethodIdValue);
            writer.WriteShort(0);
            writer.WriteShortString(exchange);
            writer.WriteShortString(routingKey);
            writer.WriteBit(mandatory);
            writer.WriteBit(false);
            writer.Flush();
        }
    }
}
