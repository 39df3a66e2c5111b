using AmqpConformance.Protocol;

namespace AmqpConformance.Protocol.Recording;

/// <summary>One frame as it crossed the wire. Immutable; one per frame, in wire order per direction.</summary>
/// <remarks>The JSON Lines export writes one object per record with these names in camelCase.</remarks>
public sealed record FrameRecord
{
    /// <summary>Position in its <see cref="FrameLog"/>, from 0, over both directions.</summary>
    public required long Sequence { get; init; }

    /// <summary>Which way the frame went.</summary>
    public required FrameDirection Direction { get; init; }

    /// <summary>Offset of the frame's first byte in its direction's byte stream (the 8-byte protocol header
    /// counts).</summary>
    public required long WireOffset { get; init; }

    /// <summary>When the frame's last byte arrived, measured from the log's start.</summary>
    public required TimeSpan Timestamp { get; init; }

    /// <summary>The frame type octet as it was on the wire (possibly not a defined <see cref="FrameType"/>).</summary>
    public required FrameType Type { get; init; }

    /// <summary>The channel number.</summary>
    public required ushort Channel { get; init; }

    /// <summary>The payload size the frame claimed (and carried, unless the frame is malformed).</summary>
    public required int Size { get; init; }

    /// <summary>Class id of a method or content header frame; 0 otherwise.</summary>
    public ushort ClassId { get; init; }

    /// <summary>Method id of a method frame; 0 otherwise.</summary>
    public ushort MethodId { get; init; }

    /// <summary>"basic.publish" and the like for method frames; null otherwise or when undecodable.</summary>
    public string? MethodName { get; init; }

    /// <summary>Body size a content header frame declared; null for other frames.</summary>
    public long? DeclaredBodySize { get; init; }

    /// <summary><see cref="FrameDigest.Compute(ReadOnlySpan{byte})"/> of the payload (XXH3 64-bit, seed 0), for body
    /// frames; null otherwise.</summary>
    public ulong? PayloadDigest { get; init; }

    /// <summary>The payload bytes. Always kept for method and header frames (they are small); for body frames
    /// only when <see cref="FrameLogOptions.CaptureBodies"/> is on, so long runs do not keep gigabytes.</summary>
    public ReadOnlyMemory<byte>? Payload { get; init; }

    /// <summary>Whether the frame ended with the 0xCE frame-end octet.</summary>
    public bool FrameEndValid { get; init; } = true;

    /// <summary>Total bytes this frame took on the wire (payload + 8).</summary>
    public long WireLength => (long)Size + AmqpConstants.FrameOverhead;
}
