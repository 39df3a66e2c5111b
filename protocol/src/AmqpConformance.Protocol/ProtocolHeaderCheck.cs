using System.Buffers;

namespace AmqpConformance.Protocol;

/// <summary>
/// Classifies the 8 bytes a client must send first. Decides as early as possible: a wrong first byte is
/// <see cref="ProtocolHeaderStatus.NotAmqp"/> without waiting for the rest.
/// </summary>
public static class ProtocolHeaderCheck
{
    /// <summary>Length of the protocol header.</summary>
    public const int Length = 8;

    /// <summary>Classifies the start of <paramref name="received"/>; only its first 8 bytes are looked at.</summary>
    public static ProtocolHeaderStatus Inspect(ReadOnlySpan<byte> received)
    {
        ReadOnlySpan<byte> amqp = "AMQP"u8;
        int prefix = Math.Min(received.Length, amqp.Length);
        if (!received[..prefix].SequenceEqual(amqp[..prefix]))
            return ProtocolHeaderStatus.NotAmqp;
        if (received.Length < Length)
        {
            int known = received.Length;
            return received[..known].SequenceEqual(AmqpConstants.ProtocolHeader[..known])
                ? ProtocolHeaderStatus.NeedMoreData
                : ProtocolHeaderStatus.OtherAmqpVersion;
        }
        return received[..Length].SequenceEqual(AmqpConstants.ProtocolHeader)
            ? ProtocolHeaderStatus.Amqp091
            : ProtocolHeaderStatus.OtherAmqpVersion;
    }

    /// <summary>Classifies the start of a (possibly multi-segment) buffer.</summary>
    public static ProtocolHeaderStatus Inspect(in ReadOnlySequence<byte> received)
    {
        Span<byte> first = stackalloc byte[Length];
        int count = (int)Math.Min(received.Length, Length);
        received.Slice(0, count).CopyTo(first);
        return Inspect(first[..count]);
    }
}
