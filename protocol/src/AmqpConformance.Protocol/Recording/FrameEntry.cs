using System.Runtime.InteropServices;

namespace AmqpConformance.Protocol.Recording;

/// <summary>One frame as the <see cref="FrameLog"/> stores it: 32 bytes in a segment array, holding no reference, so
/// recording a frame creates no object and the garbage collector never has to scan the segments.</summary>
/// <remarks>Its sequence number is its position in the log. What the frame's type makes worth keeping is in
/// <see cref="Slot"/>, as <see cref="Flags"/> say: a body frame's digest, or where the kept payload is in the log's
/// <see cref="PayloadStore"/> (method and header frames; class and method ids, declared body size and method name are
/// read back from that payload when a <see cref="FrameRecord"/> is made). Written once, under the log's lock, then never
/// changed while the log holds it.</remarks>
[StructLayout(LayoutKind.Sequential)]
internal struct FrameEntry
{
    public long WireOffset;
    public long TimestampTicks;
    public ulong Slot;
    public int Size;
    public ushort Channel;
    public byte TypeOctet;
    public FrameEntryFlags Flags;

    public readonly bool Has(FrameEntryFlags flag) => (Flags & flag) != 0;

    public readonly FrameDirection Direction => Has(FrameEntryFlags.Sent) ? FrameDirection.Sent : FrameDirection.Received;
}
