using System.Buffers;
using AmqpConformance.Protocol;

namespace AmqpConformance.TestSupport;

/// <summary>
/// Well-formed frames as wire bytes, written by the codec (<see cref="FrameFormat"/>,
/// <see cref="FrameWriterExtensions"/>): the one place tests get frame bytes from. Broken frames:
/// <see cref="MalformedFrames"/>. Each call returns a new array.
/// </summary>
public static class FrameBytes
{
    /// <summary>One frame of any type with <paramref name="payload"/> (a type no <see cref="FrameType"/> names is
    /// written as given).</summary>
    public static byte[] Frame(FrameType type, ushort channel, ReadOnlySpan<byte> payload)
    {
        var output = new ArrayBufferWriter<byte>(payload.Length + AmqpConstants.FrameOverhead);
        FrameFormat.WriteFrame(output, type, channel, payload);
        return output.WrittenSpan.ToArray();
    }

    /// <summary><paramref name="method"/> as one method frame.</summary>
    public static byte[] Method(ushort channel, IAmqpMethod method) =>
        Wire.Capture(output => output.WriteMethodFrame(channel, method));

    /// <summary>A basic content header frame declaring <paramref name="bodySize"/> bytes.</summary>
    public static byte[] Header(ushort channel, ulong bodySize, BasicProperties? properties = null) =>
        Wire.Capture(output => output.WriteHeaderFrame(channel, new ContentHeader(bodySize, properties)));

    /// <summary>One body frame carrying all of <paramref name="body"/>, whatever its size.</summary>
    public static byte[] Body(ushort channel, ReadOnlySpan<byte> body) => Frame(FrameType.Body, channel, body);

    /// <summary>A heartbeat frame (on <paramref name="channel"/>; anything but 0 is a protocol error).</summary>
    public static byte[] Heartbeat(ushort channel = 0) => Frame(FrameType.Heartbeat, channel, []);

    /// <summary>A whole content command: <paramref name="method"/>, its header, and <paramref name="body"/> split into
    /// body frames of at most <paramref name="frameMax"/> - 8 bytes (0 = one frame), as
    /// <see cref="FrameFormat.WriteBodyFrames"/> splits.</summary>
    public static byte[] Content(
        ushort channel,
        IAmqpMethod method,
        ReadOnlySpan<byte> body,
        int frameMax,
        BasicProperties? properties = null
    )
    {
        var output = new ArrayBufferWriter<byte>();
        output.WriteMethodFrame(channel, method);
        output.WriteHeaderFrame(channel, new ContentHeader((ulong)body.Length, properties));
        FrameFormat.WriteBodyFrames(output, channel, body, frameMax);
        return output.WrittenSpan.ToArray();
    }

    /// <summary>basic.publish, header and body frames (see <see cref="Content"/>).</summary>
    public static byte[] Publish(
        ushort channel,
        string exchange,
        string routingKey,
        ReadOnlySpan<byte> body,
        int frameMax,
        bool mandatory = false,
        BasicProperties? properties = null
    ) =>
        Content(
            channel,
            new BasicPublish
            {
                Exchange = exchange,
                RoutingKey = routingKey,
                Mandatory = mandatory,
            },
            body,
            frameMax,
            properties
        );

    /// <summary>The parts laid end to end (several frames for one write).</summary>
    public static byte[] Concat(params byte[][] parts) => [.. parts.SelectMany(part => part)];
}
