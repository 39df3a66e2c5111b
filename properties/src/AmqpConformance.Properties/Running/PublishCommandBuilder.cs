using System.Buffers;
using AmqpConformance.Protocol;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Properties.Running;

/// <summary>Builds the basic.publish commands the runner hands to writers: method and content header frames serialized into a
/// buffer rented from the writer's pool, the routing key naming the call (<see cref="CallCorrelation"/>), the body not copied.</summary>
public static class PublishCommandBuilder
{
    private const string PadHeader = "x-pad";
    private static readonly int HeaderOverhead =
        new ContentHeader(0, PropertiesWith(0)).EncodedLength() + AmqpConstants.FrameOverhead;

    /// <summary>The largest <see cref="Scenarios.PublishStep.HeaderBytes"/> whose content header frame still fits
    /// <paramref name="frameMax"/> (for frame_max 0, a generous 16 KiB).</summary>
    public static int MaxHeaderBytes(int frameMax) => frameMax == 0 ? 16 * 1024 : frameMax - HeaderOverhead;

    /// <summary>Content properties with a headers table of about <paramref name="headerBytes"/> bytes (none for 0).</summary>
    public static BasicProperties PropertiesWith(int headerBytes) => new()
    {
        ContentType = "application/octet-stream",
        DeliveryMode = 2,
        Headers = new FieldTable([new(PadHeader, FieldValue.LongString(new string('h', headerBytes)))]),
    };

    /// <summary>Builds call <paramref name="callId"/>'s command. Ownership of the rented frames and of
    /// <paramref name="bodyOwner"/> passes to whoever gets the command (the writer).</summary>
    /// <exception cref="ArgumentException">The content header frame would not fit <paramref name="frameMax"/>.</exception>
    public static OutgoingCommand Build(ArrayPool<byte> pool, int frameMax, ushort channel, int callId, int headerBytes,
        ReadOnlyMemory<byte> body, IDisposable? bodyOwner = null)
    {
        ArgumentNullException.ThrowIfNull(pool);
        var method = new BasicPublish { RoutingKey = CallCorrelation.RoutingKeyFor(callId) };
        var header = new ContentHeader((ulong)body.Length, headerBytes > 0 ? PropertiesWith(headerBytes) : BasicProperties.Empty);
        int methodLength = MethodCodec.EncodedLength(method);
        int headerLength = header.EncodedLength();
        if (frameMax > 0 && headerLength + AmqpConstants.FrameOverhead > frameMax)
            throw new ArgumentException($"The content header frame ({headerLength + AmqpConstants.FrameOverhead} bytes) does not fit frame_max {frameMax}: " +
                $"shrink the headers table (at most {MaxHeaderBytes(frameMax)} pad bytes).", nameof(headerBytes));
        int total = methodLength + headerLength + 2 * AmqpConstants.FrameOverhead;
        byte[] buffer = pool.Rent(total);
        Span<byte> span = buffer;
        FrameFormat.WriteHeader(span, FrameType.Method, channel, methodLength);
        MethodCodec.Encode(method, span.Slice(AmqpConstants.FrameHeaderSize, methodLength));
        span[AmqpConstants.FrameHeaderSize + methodLength] = AmqpConstants.FrameEnd;
        span = span[(methodLength + AmqpConstants.FrameOverhead)..];
        FrameFormat.WriteHeader(span, FrameType.Header, channel, headerLength);
        header.Encode(span.Slice(AmqpConstants.FrameHeaderSize, headerLength));
        span[AmqpConstants.FrameHeaderSize + headerLength] = AmqpConstants.FrameEnd;
        return new OutgoingCommand(channel, buffer, total, hasContent: true, body, bodyOwner);
    }
}
