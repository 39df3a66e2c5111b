using System.Buffers;

namespace AmqpConformance.FakeBroker;

/// <summary>
/// Where one connection keeps the small bodies of the messages it published: packed end to end into arrays on the
/// pinned object heap, each body a slice of one, so a stored message's body is no array of its own. Why: a queue that
/// holds many small messages made the garbage collector copy every body from generation to generation (a 256 B
/// message's body was more than half of the bytes that survived), which took a quarter of a publish-heavy run in
/// pauses; an array on the pinned heap is never copied, and holds no references for a collection to trace.
/// </summary>
/// <remarks>Contract: <see cref="Keep(ReadOnlySpan{byte})"/> copies a body of at most <see cref="MaxBodyLength"/> bytes
/// and returns memory that holds exactly those bytes, unchanged, for as long as anybody refers to it: a slab is only
/// ever appended to, never reused, and the garbage collector frees it once no body sliced from it is referred to. The
/// price is that one body still referred to keeps its whole slab (at most <see cref="MaxSlabLength"/> bytes) alive.
/// Slabs start at <see cref="FirstSlabLength"/> and double up to <see cref="MaxSlabLength"/>, so a connection that
/// publishes little holds little. Not thread-safe: a connection keeps bodies from its receive loop only.</remarks>
internal sealed class BodySlab
{
    /// <summary>The largest body kept in a slab; a larger one gets an array of its own (or a pooled one).</summary>
    public const int MaxBodyLength = 4096;

    /// <summary>The first slab's length.</summary>
    public const int FirstSlabLength = 4096;

    /// <summary>The longest slab: each new slab doubles the last one's length up to this.</summary>
    public const int MaxSlabLength = 64 * 1024;

    private byte[]? _slab;
    private int _used;

    /// <summary>How many slabs this connection started (for tests and reports).</summary>
    public int SlabsStarted { get; private set; }

    /// <summary>A copy of <paramref name="body"/> (at most <see cref="MaxBodyLength"/> bytes) in the current slab, or
    /// in a new one when it does not fit.</summary>
    public ReadOnlyMemory<byte> Keep(ReadOnlySpan<byte> body)
    {
        var kept = Reserve(body.Length);
        body.CopyTo(kept.Span);
        return kept;
    }

    /// <summary>A copy of <paramref name="body"/>, as <see cref="Keep(ReadOnlySpan{byte})"/> makes it, from a sequence
    /// (a body frame's payload as the receive loop reads it, in one segment or several).</summary>
    public ReadOnlyMemory<byte> Keep(in ReadOnlySequence<byte> body)
    {
        if (body.IsSingleSegment)
            return Keep(body.FirstSpan);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(body.Length, MaxBodyLength);
        var kept = Reserve((int)body.Length);
        body.CopyTo(kept.Span);
        return kept;
    }

    /// <summary>The next <paramref name="length"/> bytes of the current slab (a new slab's first when they do not fit),
    /// for the caller to fill at once.</summary>
    private Memory<byte> Reserve(int length)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(length, MaxBodyLength);
        if (length == 0)
            return Memory<byte>.Empty;
        if (_slab is null || _slab.Length - _used < length)
        {
            int slabLength = _slab is null ? FirstSlabLength : Math.Min(MaxSlabLength, _slab.Length * 2);
            _slab = GC.AllocateUninitializedArray<byte>(slabLength, pinned: true);
            _used = 0;
            SlabsStarted++;
        }
        var kept = _slab.AsMemory(_used, length);
        _used += length;
        return kept;
    }
}
