using System.Runtime.InteropServices;

namespace AmqpConformance.Protocol.Recording;

/// <summary>One frame as the <see cref="FrameLog"/> stores it: 12 bytes in a segment array, holding no reference, so
/// recording a frame creates no object and the garbage collector never has to scan the segments.</summary>
/// <remarks>Its sequence number is its position in the log. Its wire offset, timestamp and size are kept beside the
/// entries, and only where they cannot be told otherwise (<see cref="FrameMarks"/>): the size of a frame whose payload
/// is in a shared chunk is the payload's length in <see cref="Slot"/>. What the frame's type makes worth keeping is in
/// <see cref="Slot"/>, as <see cref="Flags"/> say: a body frame's digest, or where the kept payload is in the log's
/// <see cref="PayloadStore"/> (method and header frames; class and method ids, declared body size and method name are
/// read back from that payload when a <see cref="FrameRecord"/> is made). Written once, under the log's lock, then
/// never changed while the log holds it.</remarks>
[StructLayout(LayoutKind.Sequential, Pack = 4)]
internal struct FrameEntry
{
    public ulong Slot;
    public ushort Channel;
    public byte TypeOctet;
    public FrameEntryFlags Flags;

    /// <summary>Whether every bit of <paramref name="flag"/> is set (<see cref="FrameEntryFlags.Record"/> is
    /// two).</summary>
    public readonly bool Has(FrameEntryFlags flag) => (Flags & flag) == flag;

    public readonly FrameDirection Direction =>
        Has(FrameEntryFlags.Sent) ? FrameDirection.Sent : FrameDirection.Received;

    /// <summary>Whether the frame's size is the length of its payload in a shared chunk, read from <see cref="Slot"/>;
    /// otherwise it is kept beside the entry.</summary>
    public readonly bool SizeInSlot =>
        (Flags & (FrameEntryFlags.Payload | FrameEntryFlags.OwnArray | FrameEntryFlags.SizeKept))
        == FrameEntryFlags.Payload;
}
