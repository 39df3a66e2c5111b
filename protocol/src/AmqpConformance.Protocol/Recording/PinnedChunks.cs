namespace AmqpConformance.Protocol.Recording;

/// <summary>An append-only column of plain values in fixed-size chunks on the pinned object heap, addressed by absolute
/// position (positions keep counting across drops). What the frame log keeps per frame lives in such columns: its
/// entries, the sizes an entry cannot give, and the offset and timestamp marks (<see cref="FrameSegments"/>,
/// <see cref="FrameMarks"/>).</summary>
/// <remarks>Why chunks: appending never copies what is already there (a growing list allocates about twice what it
/// holds, and copies it as it goes), and dropping the oldest values releases whole chunks, kept for later appends. Why
/// pinned: a chunk lives as long as its log, so on the pinned heap it is never copied from generation to generation nor
/// compacted, and holding no references, young collections never look into it. Contract: <see cref="DropBefore"/> only
/// releases chunks whose every position is before the one given, so every position from <see cref="First"/> to
/// <see cref="Next"/> - 1 can be read; <see cref="First"/> moves in whole chunks. Not thread-safe.</remarks>
internal sealed class PinnedChunks<T>
    where T : unmanaged
{
    private readonly int _chunkLength;
    private readonly List<T[]> _chunks = [];
    private readonly Stack<T[]> _spare = new();
    private readonly bool _prepareAhead;

    // A chunk made ready on a pool thread for the next append that needs one (taken with Interlocked), and 1 from
    // queuing its preparation until an append took it: one chunk ahead at most.
    private T[]? _prepared;
    private int _preparing;

    /// <summary>A column whose chunks hold <paramref name="chunkLength"/> values each. With
    /// <paramref name="prepareAhead"/>, once an append reaches <see cref="PrepareAt"/> (the last eighth) of a chunk
    /// other than the column's first and no dropped chunk is kept for reuse, the next chunk is allocated and its pages
    /// touched on a pool thread, so the appending thread does not take a page fault on each of its fresh pages (on this
    /// project's CI machine a fault cost ~4 us, and the frame log's entries, 12 bytes a frame, fault once per ~340
    /// frames: 14 % of the broker's receive thread at 256 B bodies). Not in the first chunk: most columns never fill it
    /// (a test's connection, a few thousand frames of large bodies). Not earlier in a chunk: a column whose writer
    /// stops after the request never uses the chunk prepared for it, and a column stops anywhere in its last chunk, so
    /// asking at the middle wasted half a chunk per busy column on average (48 KiB for every other connection), asking
    /// in the last eighth an eighth; the last eighth of the log's entry chunks is still 512 frames, more than the pool
    /// thread needs.</summary>
    public PinnedChunks(int chunkLength, bool prepareAhead = false)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(chunkLength, 1);
        _chunkLength = chunkLength;
        _prepareAhead = prepareAhead;
        PrepareAt = chunkLength - Math.Max(1, chunkLength / 8);
    }

    /// <summary>The place in a chunk whose append asks for the next chunk ahead (with prepareAhead): the start of its
    /// last eighth.</summary>
    internal int PrepareAt { get; }

    /// <summary>How many chunks came ready from a pool thread (with prepareAhead).</summary>
    internal int PreparedTaken { get; private set; }

    /// <summary>Whether a chunk's preparation was queued (and the chunk not yet taken by an append).</summary>
    internal bool PreparationQueued => Volatile.Read(ref _preparing) != 0;

    /// <summary>Whether a prepared chunk waits for the next append that needs one.</summary>
    internal bool HasPrepared => Volatile.Read(ref _prepared) is not null;

    /// <summary>The position of the first value still held (that of the first value of the first chunk held).</summary>
    public long First { get; private set; }

    /// <summary>The position the next value gets (how many were ever added).</summary>
    public long Next { get; private set; }

    /// <summary>Whether the next value starts a chunk.</summary>
    public bool NextStartsChunk => (Next - First) % _chunkLength == 0;

    /// <summary>Appends <paramref name="value"/>; returns its position.</summary>
    public long Add(in T value)
    {
        long offset = Next - First;
        if (offset == (long)_chunks.Count * _chunkLength)
            _chunks.Add(NewChunk());
        int at = (int)(offset % _chunkLength);
        _chunks[^1][at] = value;
        if (_prepareAhead && at == PrepareAt && _spare.Count == 0 && offset >= _chunkLength)
            PrepareNext();
        return Next++;
    }

    /// <summary>A chunk for the next values: a dropped one, else the prepared one, else a new one.</summary>
    private T[] NewChunk()
    {
        if (_spare.Count > 0)
            return _spare.Pop();
        if (_prepareAhead && Interlocked.Exchange(ref _prepared, null) is { } ready)
        {
            Volatile.Write(ref _preparing, 0);
            PreparedTaken++;
            return ready;
        }
        return GC.AllocateUninitializedArray<T>(_chunkLength, pinned: true);
    }

    /// <summary>Queues the next chunk's preparation, unless one is already under way or waiting.</summary>
    private void PrepareNext()
    {
        if (Interlocked.CompareExchange(ref _preparing, 1, 0) != 0)
            return;
        ThreadPool.UnsafeQueueUserWorkItem(static column => column.Prepare(), this, preferLocal: false);
    }

    /// <summary>Allocates a chunk and writes one byte in each of its pages (its values are written before they are
    /// read, so what is there does not matter), then hands it over.</summary>
    private void Prepare()
    {
        var chunk = GC.AllocateUninitializedArray<T>(_chunkLength, pinned: true);
        var bytes = System.Runtime.InteropServices.MemoryMarshal.AsBytes(chunk.AsSpan());
        for (int i = 0; i < bytes.Length; i += Environment.SystemPageSize)
            bytes[i] = 0;
        Volatile.Write(ref _prepared, chunk);
    }

    /// <summary>The value at <paramref name="position"/>, which must be held (<see cref="First"/> &lt;= position &lt;
    /// <see cref="Next"/>).</summary>
    public ref readonly T this[long position]
    {
        get
        {
            long offset = position - First;
            return ref _chunks[(int)(offset / _chunkLength)][(int)(offset % _chunkLength)];
        }
    }

    /// <summary>Releases the chunks all of whose positions are before <paramref name="position"/> (at most
    /// <see cref="Next"/>); they are kept for reuse. Returns how many it released.</summary>
    public int DropBefore(long position)
    {
        int dropped = 0;
        while (_chunks.Count > 0 && position - First >= _chunkLength)
        {
            _spare.Push(_chunks[0]);
            _chunks.RemoveAt(0);
            First += _chunkLength;
            dropped++;
        }
        return dropped;
    }
}
