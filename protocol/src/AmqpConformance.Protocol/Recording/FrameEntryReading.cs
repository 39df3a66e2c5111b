using System.Buffers.Binary;

namespace AmqpConformance.Protocol.Recording;

/// <summary>What a <see cref="FrameEntry"/> does not store but its kept payload says: a method frame's class and
/// method ids, a header frame's class id and declared body size, a captured body's digest. Read the same way the
/// broker reads them, so a record made from an entry equals one made from the wire.</summary>
internal readonly ref struct FrameEntryReading
{
    public FrameEntryReading(in FrameEntry entry, ReadOnlySpan<byte> payload)
    {
        switch ((FrameType)entry.TypeOctet)
        {
            case FrameType.Method when payload.Length >= MethodCodec.IdsLength:
                ClassId = BinaryPrimitives.ReadUInt16BigEndian(payload);
                MethodId = BinaryPrimitives.ReadUInt16BigEndian(payload[2..]);
                break;
            case FrameType.Header when payload.Length >= 12:
                ClassId = BinaryPrimitives.ReadUInt16BigEndian(payload);
                DeclaredBodySize = (long)Math.Min(BinaryPrimitives.ReadUInt64BigEndian(payload[4..]), long.MaxValue);
                break;
            case FrameType.Body:
                if (entry.Has(FrameEntryFlags.Digest))
                    Digest = entry.Slot;
                else if (entry.Has(FrameEntryFlags.Payload))
                    Digest = FrameDigest.Compute(payload);
                break;
        }
    }

    public ushort ClassId { get; }

    public ushort MethodId { get; }

    public long? DeclaredBodySize { get; }

    public ulong? Digest { get; }
}
