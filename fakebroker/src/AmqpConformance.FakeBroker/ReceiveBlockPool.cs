using System.Buffers;

namespace AmqpConformance.FakeBroker;

/// <summary>
/// The memory a connection's socket reader reads into: blocks of <see cref="BlockSize"/> bytes taken from a
/// <see cref="BodyPool"/> (by default <see cref="BodyPool.Shared"/>) and given back to it when the reader is done with
/// them. Why: a read as large as a frame_max frame (128 KiB) takes a quarter of the system calls and thread-pool wake-ups
/// of a 64 KiB one, which is most of what a large body costs the broker beyond the kernel's own copy; and arrays that
/// large (on the large-object heap) must come from a pool that keeps them, or every read allocates one, which is what
/// <see cref="ArrayPool{T}.Shared"/> did for several connections at once. The socket reader only takes a block once
/// data has arrived (zero-byte reads, see <see cref="SocketDuplexPipe"/>), so an idle connection holds none.
/// </summary>
/// <remarks>Contract (that of <see cref="MemoryPool{T}"/>): <see cref="Rent"/> gives a block of exactly
/// <see cref="BlockSize"/> bytes nobody else holds, for any <c>minBufferSize</c> up to <see cref="MaxBufferSize"/>, and
/// refuses a larger one; disposing the owner gives the block back (once, however often it is disposed), after which
/// neither the owner's memory nor anything sliced from it may be used. Thread-safe. <see cref="Outstanding"/> counts blocks
/// rented and not yet given back.</remarks>
internal sealed class ReceiveBlockPool : MemoryPool<byte>
{
    /// <summary>Bytes per block: room for two frames of RabbitMQ's default frame_max (131072) with their overhead.</summary>
    public const int BlockSize = 256 * 1024;

    private readonly BodyPool _source;
    private long _outstanding;

    /// <summary>A pool whose blocks come from, and go back to, <paramref name="source"/>.</summary>
    public ReceiveBlockPool(BodyPool source)
    {
        ArgumentNullException.ThrowIfNull(source);
        if (!BodyPool.Pools(BlockSize)) throw new InvalidOperationException("the body pool does not pool arrays of a receive block's size");
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
            throw new ArgumentOutOfRangeException(nameof(minBufferSize), minBufferSize, $"a receive block holds at most {BlockSize} bytes");
        var block = new Block(this, _source.Rent(BlockSize));
        Interlocked.Increment(ref _outstanding);
        return block;
    }

    /// <summary>Nothing to release: free blocks belong to the <see cref="BodyPool"/>.</summary>
    protected override void Dispose(bool disposing)
    {
    }

    private void GiveBack(byte[] array)
    {
        Interlocked.Decrement(ref _outstanding);
        _source.Return(array);
    }

    /// <summary>One rented block; gives its array back on the first <see cref="Dispose"/>.</summary>
    private sealed class Block(ReceiveBlockPool pool, byte[] array) : IMemoryOwner<byte>
    {
        private byte[]? _array = array;

        public Memory<byte> Memory => Volatile.Read(ref _array) is { } a ? a : throw new ObjectDisposedException(nameof(ReceiveBlockPool), "the receive block was given back");

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _array, null) is { } a) pool.GiveBack(a);
        }
    }
}
