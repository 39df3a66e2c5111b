using System.Buffers;

namespace AmqpConformance.FakeBroker;

/// <summary>
/// The memory a connection's socket reader reads into: blocks of <see cref="BlockSize"/> bytes taken from a
/// <see cref="BodyPool"/> (by default <see cref="BodyPool.Shared"/>) and given back to it when the reader is done with
/// them. Why: a read as large as a frame_max frame (128 KiB) takes a quarter of the system calls and thread-pool
/// wake-ups of a 64 KiB one, which is most of what a large body costs the broker beyond the kernel's own copy; and
/// arrays that large (on the large-object heap) must come from a pool that keeps them, or every read allocates one,
/// which is what <see cref="ArrayPool{T}.Shared"/> did for several connections at once. The socket reader only takes a
/// block once data has arrived (zero-byte reads, see <see cref="SocketDuplexPipe"/>), so an idle connection holds none.
/// </summary>
/// <remarks>Contract (that of <see cref="MemoryPool{T}"/>): <see cref="Rent"/> gives a block of exactly
/// <see cref="BlockSize"/> bytes nobody else holds, for any <c>minBufferSize</c> up to <see cref="MaxBufferSize"/>, and
/// refuses a larger one; disposing the owner gives the block back (once, however often it is disposed), after which
/// neither the owner's memory nor anything sliced from it may be used. Thread-safe. <see cref="Outstanding"/> counts
/// blocks rented and not yet given back. The owner objects themselves are reused (up to <see cref="KeptOwners"/> free
/// ones), so a read costs no allocation: an owner disposed a second time <em>after</em> it was rented again would give
/// back its new renter's block, which is why the only caller is a pipe reader that disposes each owner exactly
/// once.</remarks>
internal sealed class ReceiveBlockPool : MemoryPool<byte>
{
    /// <summary>Bytes per block: room for two frames of RabbitMQ's default frame_max (131072) with their
    /// overhead.</summary>
    public const int BlockSize = 256 * 1024;

    /// <summary>The most free owner objects kept for reuse; more than the blocks a few busy connections hold at
    /// once.</summary>
    public const int KeptOwners = 64;

    private readonly BodyPool _source;
    private readonly Block[] _freeOwners = new Block[KeptOwners];
    private int _freeOwnerCount;
    private long _outstanding;

    /// <summary>A pool whose blocks come from, and go back to, <paramref name="source"/>.</summary>
    public ReceiveBlockPool(BodyPool source)
    {
        ArgumentNullException.ThrowIfNull(source);
        if (!BodyPool.Pools(BlockSize))
            throw new InvalidOperationException("the body pool does not pool arrays of a receive block's size");
        _source = source;
    }

    /// <summary>The pool every broker's socket connections read into, over <see cref="BodyPool.Shared"/>.</summary>
    public static ReceiveBlockPool ForSockets { get; } = new(BodyPool.Shared);

    /// <inheritdoc/>
    public override int MaxBufferSize => BlockSize;

    /// <summary>Blocks rented and not given back yet.</summary>
    public long Outstanding => Interlocked.Read(ref _outstanding);

    /// <inheritdoc/>
    public override IMemoryOwner<byte> Rent(int minBufferSize = -1)
    {
        if (minBufferSize > BlockSize)
            throw new ArgumentOutOfRangeException(
                nameof(minBufferSize),
                minBufferSize,
                $"a receive block holds at most {BlockSize} bytes"
            );
        byte[] array = _source.Rent(BlockSize);
        Block? owner = null;
        lock (_freeOwners)
        {
            if (_freeOwnerCount > 0)
            {
                owner = _freeOwners[--_freeOwnerCount];
                _freeOwners[_freeOwnerCount] = null!;
            }
        }
        owner ??= new Block(this);
        owner.Hold(array);
        Interlocked.Increment(ref _outstanding);
        return owner;
    }

    /// <summary>Free owner objects kept for the next rents.</summary>
    internal int FreeOwners
    {
        get
        {
            lock (_freeOwners)
                return _freeOwnerCount;
        }
    }

    /// <summary>Nothing to release: free blocks belong to the <see cref="BodyPool"/>.</summary>
    protected override void Dispose(bool disposing) { }

    private void GiveBack(Block owner, byte[] array)
    {
        Interlocked.Decrement(ref _outstanding);
        _source.Return(array);
        lock (_freeOwners)
        {
            if (_freeOwnerCount < KeptOwners)
                _freeOwners[_freeOwnerCount++] = owner;
        }
    }

    /// <summary>The owner of one rented block; gives its array back on the first <see cref="Dispose"/> after it was
    /// handed out, and is then kept for a later rent.</summary>
    private sealed class Block(ReceiveBlockPool pool) : IMemoryOwner<byte>
    {
        private byte[]? _array;

        public Memory<byte> Memory =>
            Volatile.Read(ref _array) is { } a
                ? a
                : throw new ObjectDisposedException(nameof(ReceiveBlockPool), "the receive block was given back");

        /// <summary>Makes this (free) owner the owner of <paramref name="array"/>.</summary>
        public void Hold(byte[] array) => Volatile.Write(ref _array, array);

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _array, null) is { } a)
                pool.GiveBack(this, a);
        }
    }
}
