namespace AmqpConformance.FakeBroker;

/// <summary>
/// Free chunks for <see cref="Deque{T}"/>s of one chunk length, shared by every deque made with it: a deque that is
/// done (<see cref="Deque{T}.ReleaseChunks"/>: its queue was deleted) gives its chunks here, and the next deque that
/// needs a chunk takes one before it allocates. Why: every queue used to allocate its first chunk afresh (24 KiB of
/// <see cref="QueuedMessage"/> entries), so a test or benchmark that declares an exclusive queue per connection paid a
/// chunk per connection, which at 1 MiB bodies was most of what the broker allocated per message beyond what it holds.
/// </summary>
/// <remarks>Contract: a chunk given back is cleared (every slot default, so it keeps nothing alive) and nobody refers to
/// it any more; <see cref="TryTake"/> hands it to exactly one deque. At most <see cref="Limit"/> chunks are kept; more
/// are left to the garbage collector. Thread-safe (one lock; deques of different virtual hosts and brokers share
/// it).</remarks>
internal sealed class DequeChunkPool<T>
{
    private readonly Stack<T[]> _free = new();

    /// <summary>A pool of chunks of <paramref name="chunkLength"/> items, keeping at most <paramref name="limit"/> of
    /// them.</summary>
    public DequeChunkPool(int chunkLength, int limit)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(chunkLength, 1);
        ArgumentOutOfRangeException.ThrowIfNegative(limit);
        ChunkLength = chunkLength;
        Limit = limit;
    }

    /// <summary>Items per chunk: a deque must be made with this chunk length to use the pool.</summary>
    public int ChunkLength { get; }

    /// <summary>The most free chunks kept.</summary>
    public int Limit { get; }

    /// <summary>Free chunks kept now.</summary>
    public int Count
    {
        get
        {
            lock (_free)
                return _free.Count;
        }
    }

    /// <summary>A free chunk, or false when there is none.</summary>
    public bool TryTake(out T[] chunk)
    {
        lock (_free)
            return _free.TryPop(out chunk!);
    }

    /// <summary>Takes back <paramref name="chunk"/> (of <see cref="ChunkLength"/> items, already cleared); drops it
    /// when <see cref="Limit"/> chunks are kept already.</summary>
    public void Give(T[] chunk)
    {
        if (chunk.Length != ChunkLength)
            throw new ArgumentException(
                $"a chunk of this pool holds {ChunkLength} items, not {chunk.Length}",
                nameof(chunk)
            );
        lock (_free)
        {
            if (_free.Count < Limit)
                _free.Push(chunk);
        }
    }
}
