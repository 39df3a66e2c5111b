namespace AmqpConformance.Protocol;

/// <summary>Wire constants of AMQP 0-9-1 as RabbitMQ speaks it.</summary>
public static class AmqpConstants
{
    /// <summary>The octet that ends every frame.</summary>
    public const byte FrameEnd = 0xCE;

    /// <summary>Type (1) + channel (2) + payload size (4).</summary>
    public const int FrameHeaderSize = 7;

    /// <summary>Bytes a frame adds around its payload: the 7-byte header and the frame-end octet.
    /// A body frame under frame_max N carries at most N - 8 payload bytes.</summary>
    public const int FrameOverhead = FrameHeaderSize + 1;

    /// <summary>The smallest frame_max a peer may negotiate (other than 0 = unlimited).</summary>
    public const int FrameMinSize = 4096;

    /// <summary>The protocol header a client sends first: "AMQP" 0 0 9 1.</summary>
    public static ReadOnlySpan<byte> ProtocolHeader => "AMQP\0\0\u0009\u0001"u8;

    /// <summary>Basic class id (60): the class of basic.publish and of its content header.</summary>
    public const ushort BasicClassId = 60;

    /// <summary>The largest body slice one body frame may carry under <paramref name="frameMax"/>;
    /// <see cref="int.MaxValue"/> when frame_max is 0 (unlimited).</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="frameMax"/> is negative, or 1 to 8: a frame that
    /// size has no room for a body byte (splitting a body by it would never end).</exception>
    public static int MaxBodyFramePayload(int frameMax) =>
        frameMax == 0 ? int.MaxValue
        : frameMax > FrameOverhead ? frameMax - FrameOverhead
        : throw new ArgumentOutOfRangeException(
            nameof(frameMax),
            frameMax,
            $"frame_max {frameMax} leaves no room for a body byte: it must be 0 (unlimited) or more than the {FrameOverhead}-byte frame overhead"
        );
}
