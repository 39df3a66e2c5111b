using System.Buffers;

namespace AmqpConformance.Protocol;

/// <summary>
/// One frame as found on the wire, not yet decoded. <see cref="Payload"/> is a slice of the buffer given to
/// <see cref="FrameReader.TryReadFrame(ref System.Buffers.ReadOnlySequence{byte}, long, out RawFrame)"/>: valid only
/// until that buffer's pipe is advanced past it.
/// </summary>
public readonly struct RawFrame
{
    /// <summary>Creates a frame description.</summary>
    public RawFrame(byte typeOctet, ushort channel, long claimedSize, ReadOnlySequence<byte> payload, byte endOctet)
    {
        TypeOctet = typeOctet;
        Channel = channel;
        ClaimedSize = claimedSize;
        Payload = payload;
        EndOctet = endOctet;
    }

    /// <summary>The first octet, as sent (may be a value no <see cref="FrameType"/> names).</summary>
    public byte TypeOctet { get; }

    /// <summary><see cref="TypeOctet"/> as a <see cref="FrameType"/> (a plain cast: check
    /// <see cref="Enum.IsDefined{TEnum}(TEnum)"/> for unknown types).</summary>
    public FrameType Type => (FrameType)TypeOctet;

    /// <summary>The channel number.</summary>
    public ushort Channel { get; }

    /// <summary>The payload size the header claims (an unsigned 32-bit value on the wire).</summary>
    public long ClaimedSize { get; }

    /// <summary>The payload size the header claims, capped at <see cref="int.MaxValue"/>; equal to
    /// <see cref="ClaimedSize"/> for every frame that was not rejected as too large.</summary>
    public int Size => (int)Math.Min(ClaimedSize, int.MaxValue);

    /// <summary>The payload bytes (empty for <see cref="FrameReadStatus.PayloadTooLarge"/>).</summary>
    public ReadOnlySequence<byte> Payload { get; }

    /// <summary>The octet after the payload (0 for <see cref="FrameReadStatus.PayloadTooLarge"/>).</summary>
    public byte EndOctet { get; }

    /// <summary>Whether <see cref="EndOctet"/> is 0xCE.</summary>
    public bool EndValid => EndOctet == AmqpConstants.FrameEnd;

    /// <summary>Bytes the whole frame occupies on the wire (header, payload, end octet).</summary>
    public long WireLength => ClaimedSize + AmqpConstants.FrameOverhead;

    /// <inheritdoc/>
    public override string ToString() =>
        $"{Type} ch={Channel} size={ClaimedSize}{(EndValid ? "" : $" end=0x{EndOctet:X2}")}";
}
