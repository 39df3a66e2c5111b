using System.Buffers;

namespace AmqpConformance.Protocol.Recording;

/// <summary>The memory a <see cref="FrameLog"/> keeps payloads in. Small payloads (method and header frames) are copied
/// into shared 64 KiB chunks; larger ones (captured bodies) get an array of their own. Every array is registered in a
/// table under an index that only grows, and a frame's <see cref="FrameEntry.Slot"/> names its array by that index,
/// so entries hold no references. Not thread-safe: the log uses it under its lock.</summary>
/// <remarks>
/// <para>New payloads get indices in sequence order: when an array of its own is registered while a chunk is being
/// filled, the chunk is registered again under a new index before it takes the next payload. A repeated method or
/// header payload is not copied again but names the slot of the last one of its kind, which may be older than the
/// frame before it; so the log passes <see cref="ReleaseBefore"/> the smallest index its held frames name, and the
/// rest can go.</para>
/// <para>A released chunk is reused for new payloads only when no <see cref="FrameRecord"/> can refer to it: when it
/// was registered after the last <see cref="Expose"/>, which the log calls whenever it hands out records (snapshots,
/// subscribers). Otherwise it is left to the garbage collector, which frees it once no record refers to it.</para>
/// </remarks>
internal sealed class PayloadStore
{
    /// <summary>Size of a shared chunk.</summary>
    public const int ChunkSize = 64 * 1024;

    /// <summary>Payloads longer than this get an array of their own (they would waste too much of a chunk).</summary>
    public const int MaxInChunk = 1024;

    /// <summary>One registered array, and the index it was first registered under (a chunk may be registered
    /// again).</summary>
    private readonly record struct Registered(byte[] Array, long FirstIndex, bool IsChunk);

    private readonly List<Registered> _table = [];
    private readonly Stack<byte[]> _free = new();
    private long _base;
    private byte[]? _chunk;
    private long _chunkFirstIndex;
    private long _chunkIndex = -1;
    private int _used;
    private long _exposedThrough = -1;

    /// <summary>The index the next registered array gets (every held payload's index is below it).</summary>
    public long NextIndex => _base + _table.Count;

    /// <summary>How many kinds of payload <see cref="Keep"/> compares with the last of their kind: method frames and
    /// header frames, each per direction (a publisher's repeated basic.publish alternates with the broker's basic.ack,
    /// whose delivery tag differs every time: one kind for both directions would never see a repeat).</summary>
    public const int RepeatableKinds = 4;

    /// <summary>The last payload kept of one repeatable kind: its slot and where its bytes are (the chunk and the
    /// offset in it), so a repeat is compared straight against them; no chunk (null) when there is none.</summary>
    private readonly record struct LastKept(ulong Slot, byte[]? Chunk, int Offset);

    /// <summary>The last payload kept for each kind of repeatable payload (see <see cref="Keep"/>).</summary>
    private readonly LastKept[] _lastOfKind = new LastKept[RepeatableKinds];

    /// <summary>Copies <paramref name="payload"/> in; returns its slot and whether it got an array of its own. A small
    /// payload of kind <paramref name="kind"/> (0 to <see cref="RepeatableKinds"/> - 1; -1 for none) that equals the
    /// last one kept of that kind is not copied again: it gets that one's slot (a publisher repeats the same
    /// basic.publish and header).</summary>
    /// <remarks>So a later frame can name an older index than the frame before it: the log releases only below the
    /// smallest index a held frame names.</remarks>
    public ulong Keep(in ReadOnlySequence<byte> payload, out bool ownArray, int kind = -1)
    {
        int n = (int)payload.Length;
        if (kind >= 0 && n <= MaxInChunk && payload.IsSingleSegment)
        {
            // The last one's chunk is compared only while its index is held: a released chunk may be reused for others.
            ref readonly var last = ref _lastOfKind[kind];
            if (
                last.Chunk is { } chunk
                && LengthOf(last.Slot) == n
                && IndexOf(last.Slot) >= _base
                && payload.FirstSpan.SequenceEqual(new ReadOnlySpan<byte>(chunk, last.Offset, n))
            )
            {
                ownArray = false;
                return last.Slot;
            }
        }
        ulong slot = Copy(payload, out ownArray);
        if (kind >= 0)
            _lastOfKind[kind] = ownArray ? default : new LastKept(slot, _chunk, (int)(slot >> 16) & 0xFFFF);
        return slot;
    }

    private ulong Copy(in ReadOnlySequence<byte> payload, out bool ownArray)
    {
        int n = (int)payload.Length;
        ownArray = n > MaxInChunk;
        if (ownArray)
        {
            long index = Register(payload.ToArray(), -1, isChunk: false);
            return (ulong)index << 32;
        }
        if (_chunk is null || ChunkSize - _used < n)
        {
            // Pinned object heap, as the log's segments: long-lived, never copied or compacted by the collector.
            _chunk = _free.Count > 0 ? _free.Pop() : GC.AllocateUninitializedArray<byte>(ChunkSize, pinned: true);
            _used = 0;
            _chunkIndex = _chunkFirstIndex = Register(_chunk, -1, isChunk: true);
        }
        else if (_chunkIndex != NextIndex - 1 || _chunkIndex < _base)
        {
            // Registered again when another array came after it, or when ReleaseBefore let go of its index (no held
            // frame had a payload in it): a slot must name an index the table still has.
            _chunkIndex = Register(_chunk, _chunkFirstIndex, isChunk: true);
        }
        payload.CopyTo(_chunk.AsSpan(_used, n));
        ulong slot = (ulong)_chunkIndex << 32 | (ulong)_used << 16 | (uint)n;
        _used += n;
        return slot;
    }

    private long Register(byte[] array, long firstIndex, bool isChunk)
    {
        long index = NextIndex;
        _table.Add(new Registered(array, firstIndex < 0 ? index : firstIndex, isChunk));
        return index;
    }

    /// <summary>The index a slot names.</summary>
    public static long IndexOf(ulong slot) => (long)(slot >> 32);

    /// <summary>The length of the payload a slot names in a shared chunk (not for a payload with an array of its
    /// own).</summary>
    public static int LengthOf(ulong slot) => (int)(slot & 0xFFFF);

    /// <summary>The payload a slot names (held: not released).</summary>
    public ReadOnlyMemory<byte> Resolve(ulong slot, bool ownArray)
    {
        byte[] array = _table[(int)(IndexOf(slot) - _base)].Array;
        return ownArray ? array : array.AsMemory((int)(slot >> 16) & 0xFFFF, LengthOf(slot));
    }

    /// <summary>Records handed out from now on may refer to any array registered so far: none of them will be
    /// reused.</summary>
    public void Expose() => _exposedThrough = NextIndex - 1;

    /// <summary>Lets go of the arrays registered under indices below <paramref name="index"/> (no held frame refers to
    /// them). Chunks no record can refer to, and not registered again above, are kept for reuse.</summary>
    public void ReleaseBefore(long index)
    {
        int count = (int)Math.Clamp(index - _base, 0, _table.Count);
        if (count == 0)
            return;
        for (int i = 0; i < count; i++)
        {
            var r = _table[i];
            if (r.IsChunk && r.FirstIndex > _exposedThrough && !ReferenceEquals(r.Array, _chunk) && !RegisteredAgain(i))
                _free.Push(r.Array);
        }
        _table.RemoveRange(0, count);
        _base += count;
    }

    /// <summary>Whether the chunk at table position <paramref name="at"/> is registered again later (the next chunk
    /// registered after it is the same array).</summary>
    private bool RegisteredAgain(int at)
    {
        for (int i = at + 1; i < _table.Count; i++)
            if (_table[i].IsChunk)
                return ReferenceEquals(_table[i].Array, _table[at].Array);
        return false;
    }
}
