namespace AmqpConformance.Protocol.Recording;

/// <summary>What a <see cref="FrameRecord"/> says of a frame, less its method name and payload bytes: a plain value,
/// read from a <see cref="FrameLog"/> with <see cref="FrameLog.CopyFacts"/> without making a record per
/// frame.</summary>
public readonly struct FrameFacts
{
    internal FrameFacts(
        in FrameEntry entry,
        long sequence,
        in FrameExtras extras,
        ReadOnlySpan<byte> payload,
        int payloadLength
    )
    {
        var read = new FrameEntryReading(entry, payload);
        Sequence = sequence;
        Direction = entry.Direction;
        WireOffset = extras.WireOffset;
        Timestamp = new TimeSpan(extras.TimestampTicks);
        Type = (FrameType)entry.TypeOctet;
        Channel = entry.Channel;
        Size = extras.Size;
        ClassId = read.ClassId;
        MethodId = read.MethodId;
        DeclaredBodySize = read.DeclaredBodySize;
        PayloadDigest = read.Digest;
        PayloadLength = payloadLength;
        FrameEndValid = entry.Has(FrameEntryFlags.FrameEndValid);
    }

    internal FrameFacts(FrameRecord record)
    {
        Sequence = record.Sequence;
        Direction = record.Direction;
        WireOffset = record.WireOffset;
        Timestamp = record.Timestamp;
        Type = record.Type;
        Channel = record.Channel;
        Size = record.Size;
        ClassId = record.ClassId;
        MethodId = record.MethodId;
        DeclaredBodySize = record.DeclaredBodySize;
        PayloadDigest = record.PayloadDigest;
        PayloadLength = record.Payload is { } p ? p.Length : -1;
        FrameEndValid = record.FrameEndValid;
    }

    /// <summary><see cref="FrameRecord.Sequence"/>.</summary>
    public long Sequence { get; }

    /// <summary><see cref="FrameRecord.Direction"/>.</summary>
    public FrameDirection Direction { get; }

    /// <summary><see cref="FrameRecord.WireOffset"/>.</summary>
    public long WireOffset { get; }

    /// <summary><see cref="FrameRecord.Timestamp"/>.</summary>
    public TimeSpan Timestamp { get; }

    /// <summary><see cref="FrameRecord.Type"/>.</summary>
    public FrameType Type { get; }

    /// <summary><see cref="FrameRecord.Channel"/>.</summary>
    public ushort Channel { get; }

    /// <summary><see cref="FrameRecord.Size"/>.</summary>
    public int Size { get; }

    /// <summary><see cref="FrameRecord.ClassId"/>.</summary>
    public ushort ClassId { get; }

    /// <summary><see cref="FrameRecord.MethodId"/>.</summary>
    public ushort MethodId { get; }

    /// <summary><see cref="FrameRecord.DeclaredBodySize"/>.</summary>
    public long? DeclaredBodySize { get; }

    /// <summary><see cref="FrameRecord.PayloadDigest"/>.</summary>
    public ulong? PayloadDigest { get; }

    /// <summary>Length of <see cref="FrameRecord.Payload"/>; -1 when the record has none (null).</summary>
    public int PayloadLength { get; }

    /// <summary><see cref="FrameRecord.FrameEndValid"/>.</summary>
    public bool FrameEndValid { get; }

    /// <summary><see cref="FrameRecord.WireLength"/>.</summary>
    public long WireLength => (long)Size + AmqpConstants.FrameOverhead;
}
