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
internal sealed class PinnedChunks<T> where T : unmanaged
{
    private readonly int _chunkLength;
    private readonly List<T[]> _chunks = [];
    private readonly Stack<T[]> _spare = new();

    /// <summary>A column whose chunks hold <paramref name="chunkLength"/> values each.</summary>
    public PinnedChunks(int chunkLength)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(chunkLength, 1);
        _chunkLength = chunkLength;
    }

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
            _chunks.Add(_spare.Count > 0 ? _spare.Pop() : GC.AllocateUninitializedArray<T>(_chunkLength, pinned: true));
        _chunks[^1][(int)(offset % _chunkLength)] = value;
        return Next++;
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
