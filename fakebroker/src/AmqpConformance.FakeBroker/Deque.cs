namespace AmqpConformance.FakeBroker;

/// <summary>A double-ended queue in fixed-size chunks of <typeparamref name="T"/>: add at either end, take from the
/// front, enumerate front to back. A queue's ready messages live in one, so holding a message costs no node object (a
/// linked list's node per message was a sixth of what the broker allocated per stored 256 B message), and growing never
/// copies what is held (one ring doubling as it grew allocated about twice what it held, the larger rings on the
/// large-object heap, whose allocations bring on full collections). Not thread-safe: the broker uses it under the
/// virtual host's lock.</summary>
/// <remarks>The chunks in use form a ring of chunk references. A chunk emptied at the front is kept as a spare for the
/// next chunk needed, up to <see cref="KeptSpares"/> of them, so a queue filled and drained in turn by up to that many
/// chunks' worth allocates nothing once warm, and a queue that held many messages once lets go of the memory when it
/// drains (the single ring it replaced never shrank).</remarks>
internal sealed class Deque<T>
{
    /// <summary>Items per chunk by default: 1,024 (24 KiB of 24-byte entries, under the large-object
    /// threshold).</summary>
    public const int DefaultChunkLength = 1024;

    /// <summary>The most emptied chunks kept for reuse.</summary>
    public const int KeptSpares = 4;

    private readonly int _chunkLength;
    private readonly DequeChunkPool<T>? _pool;
    private readonly T[]?[] _spares = new T[KeptSpares][];
    private int _spareCount;
    private T[][] _ring = [];
    private int _firstChunk; // ring index of the chunk holding the first item
    private int _chunks; // chunks in use, from _firstChunk on
    private int _head; // index of the first item in its chunk
    private int _count;

    /// <summary>An empty deque whose chunks hold <paramref name="chunkLength"/> items each.</summary>
    public Deque(int chunkLength = DefaultChunkLength)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(chunkLength, 1);
        _chunkLength = chunkLength;
    }

    /// <summary>An empty deque that takes its chunks from <paramref name="pool"/> when it has no spare of its own, and
    /// gives them back there on <see cref="ReleaseChunks"/>.</summary>
    public Deque(DequeChunkPool<T> pool)
        : this(pool.ChunkLength) => _pool = pool;

    /// <summary>How many items it holds.</summary>
    public int Count => _count;

    /// <summary>Adds <paramref name="item"/> after the last.</summary>
    public void AddLast(T item)
    {
        int end = _head + _count;
        if (end == _chunks * _chunkLength)
        {
            EnsureRingRoom();
            _ring[(_firstChunk + _chunks) % _ring.Length] = NewChunk();
            _chunks++;
        }
        _ring[(_firstChunk + end / _chunkLength) % _ring.Length][end % _chunkLength] = item;
        _count++;
    }

    /// <summary>Adds <paramref name="item"/> before the first.</summary>
    public void AddFirst(T item)
    {
        if (_head == 0)
        {
            EnsureRingRoom();
            _firstChunk = (_firstChunk + _ring.Length - 1) % _ring.Length;
            _ring[_firstChunk] = NewChunk();
            _chunks++;
            _head = _chunkLength;
        }
        _head--;
        _ring[_firstChunk][_head] = item;
        _count++;
    }

    /// <summary>Takes the first item out; false when empty.</summary>
    public bool TryRemoveFirst(out T item)
    {
        if (_count == 0)
        {
            item = default!;
            return false;
        }
        T[] chunk = _ring[_firstChunk];
        item = chunk[_head];
        chunk[_head] = default!; // the deque does not keep what it gave away alive
        _head++;
        _count--;
        if (_head == _chunkLength)
            ReleaseFirstChunk();
        else if (_count == 0)
            _head = 0; // empty: start the chunk over rather than crawl along it
        return true;
    }

    /// <summary>Removes every item (and lets go of them, and of the chunks beyond the spares kept).</summary>
    public void Clear()
    {
        for (int i = 0; i < _chunks; i++)
        {
            T[] chunk = _ring[(_firstChunk + i) % _ring.Length];
            if (_spareCount == KeptSpares)
                break;
            Array.Clear(chunk);
            _spares[_spareCount++] = chunk;
        }
        Array.Clear(_ring);
        _firstChunk = 0;
        _chunks = 0;
        _head = 0;
        _count = 0;
    }

    /// <summary>Removes every item, as <see cref="Clear"/> does, and gives every chunk it holds (in use or spare) to the
    /// pool it was made with, for other deques to reuse; without a pool it just lets go of them. For a deque that is
    /// done (its queue deleted): it stays usable, but starts over with no chunk.</summary>
    public void ReleaseChunks()
    {
        if (_pool is not null)
        {
            for (int i = 0; i < _chunks; i++)
            {
                T[] chunk = _ring[(_firstChunk + i) % _ring.Length];
                Array.Clear(chunk); // the pool keeps nothing alive
                _pool.Give(chunk);
            }
            for (int i = 0; i < _spareCount; i++)
                _pool.Give(_spares[i]!); // cleared already, slot by slot or by Clear
        }
        Array.Clear(_spares);
        _spareCount = 0;
        _ring = [];
        _firstChunk = 0;
        _chunks = 0;
        _head = 0;
        _count = 0;
    }

    /// <summary>Front to back, without allocating. Must not be used across a change.</summary>
    public Enumerator GetEnumerator() => new(this);

    private T[] NewChunk()
    {
        if (_spareCount == 0)
            return _pool is not null && _pool.TryTake(out T[] pooled) ? pooled : new T[_chunkLength];
        T[] chunk = _spares[--_spareCount]!;
        _spares[_spareCount] = null;
        return chunk;
    }

    private void ReleaseFirstChunk()
    {
        if (_spareCount < KeptSpares)
            _spares[_spareCount++] = _ring[_firstChunk]; // cleared slot by slot as its items were taken
        _ring[_firstChunk] = null!;
        _firstChunk = (_firstChunk + 1) % _ring.Length;
        _chunks--;
        _head = 0;
    }

    /// <summary>Makes room in the ring for one more chunk (the ring holds only references: growing it copies 8 bytes
    /// per chunk).</summary>
    private void EnsureRingRoom()
    {
        if (_chunks < _ring.Length)
            return;
        var grown = new T[Math.Max(4, _ring.Length * 2)][];
        for (int i = 0; i < _chunks; i++)
            grown[i] = _ring[(_firstChunk + i) % _ring.Length];
        _ring = grown;
        _firstChunk = 0;
    }

    /// <summary>Enumerates a <see cref="Deque{T}"/> front to back.</summary>
    public struct Enumerator(Deque<T> deque)
    {
        private int _index = -1;

        /// <summary>The item at the current position.</summary>
        public readonly T Current
        {
            get
            {
                int at = deque._head + _index;
                return deque._ring[(deque._firstChunk + at / deque._chunkLength) % deque._ring.Length][
                    at % deque._chunkLength
                ];
            }
        }

        /// <summary>Moves to the next item; false past the last.</summary>
        public bool MoveNext() => ++_index < deque._count;
    }
}
