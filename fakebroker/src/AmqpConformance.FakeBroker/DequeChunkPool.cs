namespace AmqpConformance.FakeBroker;

/// <summary>
/// Free chunks for <see cref="Deque{T}"/>s of one chunk length, shared by every deque made with it: a deque that is
/// done (<see cref="Deque{T}.ReleaseChunks"/>: its queue was deleted) gives its chunks here, and the next deque that
/// needs a chunk takes one before it allocates. Why: every queue used to allocate its first chunk afresh (72 KiB of
/// <see cref="QueuedMessage"/> entries today), so a test or benchmark that declares an exclusive queue per connection paid a
/// chunk per connection, which at 1 MiB bodies was most of what the broker allocated per message beyond what it holds.
/// </summary>
/// <remarks>Contract: a chunk given back is cleared (every slot default, so it keeps nothing alive) and nobody refers to
/// it any more; <see cref="TryTake"/> hands it to exactly one deque. At most <see cref="Limit"/> chunks are kept; more
/// are left to the garbage collector, and all of them are dropped at the first full collection after the pool sat
/// unused (no take and no give) for <see cref="IdleBeforeTrim"/> (<see cref="TrimIfIdle"/>), so a process that stopped
/// storing messages gives the memory back. Thread-safe (one lock; deques of different virtual hosts and brokers share
/// it).</remarks>
internal sealed class DequeChunkPool<T> : IIdleTrimmable
{
    private readonly Stack<T[]> _free = new();
    private long _lastUse = Environment.TickCount64;

    /// <summary>A pool of chunks of <paramref name="chunkLength"/> items, keeping at most <paramref name="limit"/> of
    /// them, and none once it sat unused for <paramref name="idleBeforeTrim"/> (default one minute) at a full
    /// collection.</summary>
    public DequeChunkPool(int chunkLength, int limit, TimeSpan? idleBeforeTrim = null)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(chunkLength, 1);
        ArgumentOutOfRangeException.ThrowIfNegative(limit);
        ChunkLength = chunkLength;
        Limit = limit;
        IdleBeforeTrim = idleBeforeTrim ?? TimeSpan.FromMinutes(1);
        Gen2IdleTrimmer.Register(this);
    }

    /// <summary>How long the pool must sit unused before a full collection makes it drop its free chunks.</summary>
    public TimeSpan IdleBeforeTrim { get; }

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
        {
            _lastUse = Environment.TickCount64;
            return _free.TryPop(out chunk!);
        }
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
            _lastUse = Environment.TickCount64;
            if (_free.Count < Limit)
                _free.Push(chunk);
        }
    }

    /// <summary>Drops every free chunk if the pool has been unused for <see cref="IdleBeforeTrim"/>; returns whether it
    /// did. Called after every full collection.</summary>
    public bool TrimIfIdle()
    {
        lock (_free)
        {
            if (_free.Count == 0 || Environment.TickCount64 - _lastUse < (long)IdleBeforeTrim.TotalMilliseconds)
                return false;
            _free.Clear();
            return true;
        }
    }
}
