namespace AmqpConformance.Protocol.Recording;

/// <summary>The frame sizes <see cref="FrameMarks"/> keeps, in frame order, in fixed 16 KiB chunks: appending never copies
/// what is there (a growing list would allocate about twice what it holds), and dropping the oldest releases whole
/// chunks, which later appends reuse. Positions are absolute: they keep counting across drops. Not thread-safe.</summary>
internal sealed class SizeColumn
{
    /// <summary>Sizes per chunk: 4,096 x 4 bytes = 16 KiB, so a connection of few frames does not pay for more.</summary>
    private const int ChunkLength = 4096;

    private readonly List<int[]> _chunks = [];
    private readonly Stack<int[]> _spare = new();
    private long _chunkBase;

    /// <summary>The position the next size gets (how many were ever added).</summary>
    public long Next { get; private set; }

    /// <summary>Appends <paramref name="size"/> at <see cref="Next"/>.</summary>
    public void Add(int size)
    {
        int at = (int)(Next - _chunkBase) % ChunkLength;
        if (at == 0 && Next - _chunkBase == (long)_chunks.Count * ChunkLength)
            _chunks.Add(_spare.Count > 0 ? _spare.Pop() : GC.AllocateUninitializedArray<int>(ChunkLength, pinned: true));
        _chunks[^1][at] = size;
        Next++;
    }

    /// <summary>The size at <paramref name="position"/> (not dropped, below <see cref="Next"/>).</summary>
    public int this[long position]
    {
        get
        {
            long offset = position - _chunkBase;
            return _chunks[(int)(offset / ChunkLength)][(int)(offset % ChunkLength)];
        }
    }

    /// <summary>Lets go of the sizes before <paramref name="position"/> (whole chunks only; they are kept for reuse).</summary>
    public void DropBefore(long position)
    {
        while (_chunks.Count > 1 && position - _chunkBase >= ChunkLength)
        {
            _spare.Push(_chunks[0]);
            _chunks.RemoveAt(0);
            _chunkBase += ChunkLength;
        }
    }
}
