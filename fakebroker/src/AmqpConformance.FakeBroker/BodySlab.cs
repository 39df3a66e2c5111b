using System.Buffers;

namespace AmqpConformance.FakeBroker;

/// <summary>
/// Where one connection keeps the small bodies of the messages it published: packed end to end into arrays on the
/// pinned object heap, each body a slice of one, so a stored message's body is no array of its own. Why: a queue that
/// holds many small messages made the garbage collector copy every body from generation to generation (a 256 B
/// message's body was more than half of the bytes that survived), which took a quarter of a publish-heavy run in
/// pauses; an array on the pinned heap is never copied, and holds no references for a collection to trace. Full-length
/// slabs come from <see cref="SharedPool"/> and go back to it once every message in them was dropped unread, so a
/// process that stores and drops many small messages does not keep allocating pinned memory (each new slab counted
/// towards a full collection).
/// </summary>
/// <remarks>Contract: <see cref="Keep(ReadOnlySpan{byte}, bool, out PooledBody?)"/> copies a body of at most
/// <see cref="MaxBodyLength"/> bytes and returns memory that holds exactly those bytes, unchanged, for as long as
/// anybody outside the queues could refer to it. Slabs start at <see cref="FirstSlabLength"/> and double up to
/// <see cref="MaxSlabLength"/>, so a connection that publishes little holds little; the shorter slabs are only ever
/// appended to and left to the garbage collector. A full-length slab is tracked by one <see cref="PooledBody"/> shared
/// by every body in it: this slab holds it while it is still being filled (until the next slab starts, or
/// <see cref="Retire"/>), each queue holds it for each of its messages, and it goes back to the pool only when all of
/// them let go and no body in it ever escaped (<see cref="PooledBody"/>'s rule, for the whole slab). A body kept with
/// <c>poolable: false</c> (a message kept in <see cref="BrokerConnection.Published"/> or returned to its publisher)
/// makes its slab escape at once. Not thread-safe: a connection keeps bodies from its receive loop only.</remarks>
internal sealed class BodySlab
{
    /// <summary>The largest body kept in a slab; a larger one gets an array of its own (or a pooled one).</summary>
    public const int MaxBodyLength = 4096;

    /// <summary>The first slab's length.</summary>
    public const int FirstSlabLength = 4096;

    /// <summary>The longest slab: each new slab doubles the last one's length up to this. Slabs of this length are
    /// pooled.</summary>
    public const int MaxSlabLength = BodyPool.MinimumPooledLength;

    private readonly BodyPool _pool;
    private byte[]? _slab;
    private int _used;
    private PooledBody? _storage;

    /// <summary>A connection's slabs, the full-length ones from <paramref name="pool"/> (default
    /// <see cref="SharedPool"/>).</summary>
    public BodySlab(BodyPool? pool = null) => _pool = pool ?? SharedPool;

    /// <summary>The full-length slabs every connection of the process shares: pinned, at most 64 MiB of them kept
    /// free, dropped after a minute unused (<see cref="BodyPool"/>'s trim).</summary>
    public static BodyPool SharedPool { get; } = new(64L * 1024 * 1024, pinned: true);

    /// <summary>How many slabs this connection started (for tests and reports).</summary>
    public int SlabsStarted { get; private set; }

    /// <summary>A copy of <paramref name="body"/> for good: its slab escapes, so it is never reused.</summary>
    public ReadOnlyMemory<byte> Keep(ReadOnlySpan<byte> body) => Keep(body, poolable: false, out _);

    /// <summary>A copy of <paramref name="body"/> (at most <see cref="MaxBodyLength"/> bytes) in the current slab, or
    /// in a new one when it does not fit. With <paramref name="poolable"/> (the message goes to queues only),
    /// <paramref name="storage"/> is the slab's storage when the slab is pooled, for the queues to hold; otherwise it
    /// is null and the slab escapes.</summary>
    public ReadOnlyMemory<byte> Keep(ReadOnlySpan<byte> body, bool poolable, out PooledBody? storage)
    {
        var kept = Reserve(body.Length, poolable, out storage);
        body.CopyTo(kept.Span);
        return kept;
    }

    /// <summary>A copy of <paramref name="body"/>, as <see cref="Keep(ReadOnlySpan{byte}, bool, out PooledBody?)"/>
    /// makes it, from a sequence (a body frame's payload as the receive loop reads it, in one segment or
    /// several).</summary>
    public ReadOnlyMemory<byte> Keep(in ReadOnlySequence<byte> body, bool poolable, out PooledBody? storage)
    {
        if (body.IsSingleSegment)
            return Keep(body.FirstSpan, poolable, out storage);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(body.Length, MaxBodyLength);
        var kept = Reserve((int)body.Length, poolable, out storage);
        body.CopyTo(kept.Span);
        return kept;
    }

    /// <summary>The connection publishes no more: the slab being filled is no longer held by it, so it goes back to
    /// the pool as soon as its queues let go of its messages (at once if they already did). Keeping another body after
    /// this starts a new slab.</summary>
    public void Retire()
    {
        _storage?.Release();
        _storage = null;
        _slab = null;
        _used = 0;
    }

    /// <summary>The next <paramref name="length"/> bytes of the current slab (a new slab's first when they do not fit),
    /// for the caller to fill at once.</summary>
    private Memory<byte> Reserve(int length, bool poolable, out PooledBody? storage)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(length, MaxBodyLength);
        storage = null;
        if (length == 0)
            return Memory<byte>.Empty;
        if (_slab is null || _slab.Length - _used < length)
            StartSlab();
        var kept = _slab.AsMemory(_used, length);
        _used += length;
        if (_storage is { } current)
        {
            if (poolable)
                storage = current;
            else
                current.Escape();
        }
        return kept;
    }

    [System.Diagnostics.CodeAnalysis.MemberNotNull(nameof(_slab))]
    private void StartSlab()
    {
        int slabLength = _slab is null ? FirstSlabLength : Math.Min(MaxSlabLength, _slab.Length * 2);
        _storage?.Release(); // this slab's own hold: its queues decide from now on
        _storage = null;
        if (slabLength == MaxSlabLength)
        {
            _slab = _pool.Rent(slabLength);
            _storage = new PooledBody(_slab, _pool);
            _storage.Hold();
        }
        else
        {
            _slab = GC.AllocateUninitializedArray<byte>(slabLength, pinned: true);
        }
        _used = 0;
        SlabsStarted++;
    }
}
