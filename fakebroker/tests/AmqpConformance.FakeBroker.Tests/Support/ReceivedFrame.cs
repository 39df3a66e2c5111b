using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Support;

/// <summary>A frame the test client received from the broker (payload copied).</summary>
internal sealed record ReceivedFrame(byte TypeOctet, ushort Channel, byte[] Payload)
{
    public FrameType Type => (FrameType)TypeOctet;

    public bool IsHeartbeat => TypeOctet == (byte)FrameType.Heartbeat;

    /// <summary>The decoded method (throws for non-method frames).</summary>
    public IAmqpMethod Method => TypeOctet == (byte)FrameType.Method
        ? MethodCodec.Decode(Payload)
        : throw new InvalidOperationException($"Frame is {Type}, not a method frame.");

    public override string ToString() => TypeOctet == (byte)FrameType.Method ? $"ch{Channel} {Method}" : $"ch{Channel} {Type} ({Payload.Length} B)";
}
