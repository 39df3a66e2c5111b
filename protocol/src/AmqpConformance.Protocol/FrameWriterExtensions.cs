using System.Buffers;

namespace AmqpConformance.Protocol;

/// <summary>
/// Writes whole method, content-header and heartbeat frames (header, payload, 0xCE) straight into an
/// <see cref="IBufferWriter{T}"/>, with no intermediate buffer. Body frames: <see cref="FrameFormat.WriteBodyFrames"/>.
/// These do not check frame_max; the harness's <c>CommandBuilder</c> does.
/// </summary>
public static class FrameWriterExtensions
{
    /// <summary>Writes <paramref name="method"/> as one method frame on <paramref name="channel"/>.</summary>
    /// <exception cref="ArgumentException">A short string is too long, or the method is not a library
    /// record.</exception>
    public static void WriteMethodFrame(this IBufferWriter<byte> output, ushort channel, IAmqpMethod method)
    {
        ArgumentNullException.ThrowIfNull(output);
        int size = MethodCodec.EncodedLength(method);
        WriteFrameHeader(output, FrameType.Method, channel, size);
        MethodCodec.Encode(method, output);
        WriteFrameEnd(output);
    }

    /// <summary>Writes <paramref name="header"/> as one content header frame on <paramref name="channel"/>.</summary>
    /// <exception cref="ArgumentException">A short-string property is longer than 255 bytes.</exception>
    public static void WriteHeaderFrame(this IBufferWriter<byte> output, ushort channel, ContentHeader header)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(header);
        int size = header.EncodedLength();
        WriteFrameHeader(output, FrameType.Header, channel, size);
        header.Encode(output);
        WriteFrameEnd(output);
    }

    /// <summary>Writes a heartbeat frame: 08 00 00 00 00 00 00 CE.</summary>
    public static void WriteHeartbeat(this IBufferWriter<byte> output)
    {
        ArgumentNullException.ThrowIfNull(output);
        WriteFrameHeader(output, FrameType.Heartbeat, 0, 0);
        WriteFrameEnd(output);
    }

    private static void WriteFrameHeader(IBufferWriter<byte> output, FrameType type, ushort channel, int size)
    {
        FrameFormat.WriteHeader(output.GetSpan(AmqpConstants.FrameHeaderSize), type, channel, size);
        output.Advance(AmqpConstants.FrameHeaderSize);
    }

    private static void WriteFrameEnd(IBufferWriter<byte> output)
    {
        output.GetSpan(1)[0] = AmqpConstants.FrameEnd;
        output.Advance(1);
    }
}
