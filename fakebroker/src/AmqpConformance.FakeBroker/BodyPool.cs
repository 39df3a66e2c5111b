namespace AmqpConformance.FakeBroker;

/// <summary>
/// The process-wide store of large message-body buffers that queues held and gave back: arrays of a power-of-two length
/// from <see cref="MinimumPooledLength"/> to <see cref="MaximumPooledLength"/>, kept for the next body that needs one,
/// by any broker in the process, up to <see cref="RetainedLimit"/> bytes in all. Why: a routed body stays in its queue
/// until the queue or the connection goes, so it can never go back to <see cref="System.Buffers.ArrayPool{T}"/> within
/// a publish; each large body then landed in memory the process had never touched, and on a virtual machine the
/// kernel's page faults and page clearing for that cost several times the copy itself. Bodies handed back here when
/// their queue drops them unread (<see cref="PooledBody"/>) are written again by later publishes instead.
/// </summary>
/// <remarks>
/// Contract: <see cref="Rent"/> returns an array nobody else holds (contents undefined); the renter owns it until it
/// passes it to <see cref="Return"/>, after which it must not read or write it, and no reference to it may be left
/// anywhere a reader could reach (see <see cref="PooledBody"/> for how the broker makes sure). Arrays not of a pooled
/// length are ignored by <see cref="Return"/>. Thread-safe (one lock; a rent or return is a list push or pop). Free
/// arrays are not kept for ever: at the first full (gen2) garbage collection after the pool sat unused (no rent and no
/// return) for <see cref="IdleBeforeTrim"/>, it drops them all (<see cref="TrimIfIdle"/>), so a process that stopped
/// publishing large bodies gives the memory back.
/// </remarks>
internal sealed class BodyPool : IIdleTrimmable
{
    /// <summary>The smallest body that is rented from the pool: smaller ones are cheap to allocate and live on the
    /// small-object heap.</summary>
    public const int MinimumPooledLength = 64 * 1024;

    /// <summary>The largest pooled array; a larger body gets an array of its own, left to the garbage
    /// collector.</summary>
    public const int MaximumPooledLength = 16 * 1024 * 1024;

    private readonly Stack<byte[]>[] _free;
    private readonly bool _pinned;
    private long _retained;
    private long _lastUse = Environment.TickCount64;

    /// <summary>A pool that keeps at most <paramref name="retainedLimit"/> bytes of free arrays, and drops them at a
    /// full collection once it sat unused for <paramref name="idleBeforeTrim"/> (default one minute). With
    /// <paramref name="pinned"/> its new arrays go on the pinned object heap, which the collector never copies (for
    /// <see cref="BodySlab"/>'s slabs, just under the large-object threshold).</summary>
    public BodyPool(long retainedLimit, TimeSpan? idleBeforeTrim = null, bool pinned = false)
    {
        RetainedLimit = retainedLimit;
        _pinned = pinned;
        IdleBeforeTrim = idleBeforeTrim ?? TimeSpan.FromMinutes(1);
        _free = new Stack<byte[]>[SizeClass(MaximumPooledLength) + 1];
        for (int i = 0; i < _free.Length; i++)
            _free[i] = new Stack<byte[]>();
        Gen2IdleTrimmer.Register(this);
    }

    /// <summary>The pool all brokers of the process share; keeps at most 256 MiB of free arrays.</summary>
    public static BodyPool Shared { get; } = new(256L * 1024 * 1024);

    /// <summary>The most bytes of free arrays kept; an array returned beyond it is left to the garbage
    /// collector.</summary>
    public long RetainedLimit { get; }

    /// <summary>How long the pool must sit unused before a full collection makes it drop its free arrays.</summary>
    public TimeSpan IdleBeforeTrim { get; }

    /// <summary>Bytes of free arrays kept now.</summary>
    public long Retained
    {
        get
        {
            lock (_free)
                return _retained;
        }
    }

    /// <summary>Whether a body of <paramref name="length"/> bytes is rented from here.</summary>
    public static bool Pools(long length) => length is >= MinimumPooledLength and <= MaximumPooledLength;

    /// <summary>An array of at least <paramref name="length"/> bytes (a pooled length when <see cref="Pools"/> says
    /// so), reused if one is free, else new and uninitialised.</summary>
    public byte[] Rent(int length)
    {
        if (!Pools(length))
            return GC.AllocateUninitializedArray<byte>(length);
        int sizeClass = SizeClass(length);
        lock (_free)
        {
            _lastUse = Environment.TickCount64;
            if (_free[sizeClass].TryPop(out byte[]? array))
            {
                _retained -= array.Length;
                return array;
            }
        }
        return GC.AllocateUninitializedArray<byte>(MinimumPooledLength << sizeClass, _pinned);
    }

    /// <summary>Takes back an array from <see cref="Rent"/>; the caller must hold no reference to it any
    /// more.</summary>
    public void Return(byte[] array)
    {
        ArgumentNullException.ThrowIfNull(array);
        if (!Pools(array.Length) || (MinimumPooledLength << SizeClass(array.Length)) != array.Length)
            return;
        lock (_free)
        {
            _lastUse = Environment.TickCount64;
            if (_retained + array.Length > RetainedLimit)
                return;
            _free[SizeClass(array.Length)].Push(array);
            _retained += array.Length;
        }
    }

    /// <summary>Drops every free array if the pool has been unused for <see cref="IdleBeforeTrim"/>; returns whether it
    /// did. Called after every full collection.</summary>
    public bool TrimIfIdle()
    {
        lock (_free)
        {
            if (_retained == 0 || Environment.TickCount64 - _lastUse < (long)IdleBeforeTrim.TotalMilliseconds)
                return false;
            foreach (var stack in _free)
                stack.Clear();
            _retained = 0;
            return true;
        }
    }

    /// <summary>Drops every free array (for the garbage collector to take).</summary>
    public void Clear()
    {
        lock (_free)
        {
            foreach (var stack in _free)
                stack.Clear();
            _retained = 0;
        }
    }

    /// <summary>0 for up to <see cref="MinimumPooledLength"/> bytes, 1 for up to twice that, and so on.</summary>
    private static int SizeClass(long length)
    {
        long units = (length + MinimumPooledLength - 1) / MinimumPooledLength;
        return units <= 1 ? 0 : 64 - System.Numerics.BitOperations.LeadingZeroCount((ulong)(units - 1));
    }
}
