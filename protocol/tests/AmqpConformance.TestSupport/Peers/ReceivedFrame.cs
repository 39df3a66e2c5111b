using AmqpConformance.Protocol;

namespace AmqpConformance.TestSupport.Peers;

/// <summary>
/// One thing a <see cref="AmqpPeer"/> read: a frame (payload copied, so it outlives the read buffer) or, where the
/// bytes start with "AMQP", the 8-byte protocol header a peer sends first (a server answers a header it refuses with
/// its own).
/// </summary>
/// <param name="TypeOctet">The frame's type octet as sent ('A' for a protocol header).</param>
/// <param name="Channel">The channel (0 for a protocol header).</param>
/// <param name="Payload">The payload (the 8 header bytes for a protocol header).</param>
/// <param name="EndOctet">The octet after the payload; 0xCE unless the peer sent a broken frame.</param>
/// <param name="IsProtocolHeader">Whether this is a protocol header rather than a frame.</param>
public sealed record ReceivedFrame(
    byte TypeOctet,
    ushort Channel,
    byte[] Payload,
    byte EndOctet = AmqpConstants.FrameEnd,
    bool IsProtocolHeader = false
)
{
    /// <summary><see cref="TypeOctet"/> as a frame type (a plain cast).</summary>
    public FrameType Type => (FrameType)TypeOctet;

    /// <summary>Whether this is a heartbeat frame (on any channel).</summary>
    public bool IsHeartbeat => !IsProtocolHeader && Type == FrameType.Heartbeat;

    /// <summary>Whether this is a method frame.</summary>
    public bool IsMethod => !IsProtocolHeader && Type == FrameType.Method;

    /// <summary>The decoded method.</summary>
    /// <exception cref="InvalidOperationException">This is not a method frame.</exception>
    /// <exception cref="AmqpDecodeException">The payload is not a method this codec knows.</exception>
    public IAmqpMethod Method =>
        IsMethod ? MethodCodec.Decode(Payload) : throw new InvalidOperationException($"{this} is not a method frame.");

    /// <summary>The decoded method, or null for any other frame.</summary>
    public IAmqpMethod? MethodOrNull => IsMethod ? MethodCodec.Decode(Payload) : null;

    /// <inheritdoc/>
    public override string ToString() =>
        IsProtocolHeader ? $"protocol header {Convert.ToHexString(Payload)}"
        : IsMethod ? $"ch{Channel} {DescribeMethod()}"
        : $"ch{Channel} {Type} ({Payload.Length} B)";

    private string DescribeMethod()
    {
        try
        {
            return Method.ToString()!;
        }
        catch (AmqpDecodeException e)
        {
            return $"undecodable method ({e.Message})";
        }
    }
}
