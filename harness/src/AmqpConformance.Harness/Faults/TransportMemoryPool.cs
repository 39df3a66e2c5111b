using System.Buffers;

namespace AmqpConformance.Harness.Faults;

/// <summary>
/// The memory the in-process transport's pipes buffer bytes in: arrays of a pool of the harness's own
/// (<see cref="ArrayPool{T}.Create(int, int)"/>), not <see cref="ArrayPool{T}.Shared"/>, which a pipe uses by default.
/// Why: a writer under test may rent from the shared pool itself (RabbitMQ.Client copies bodies into it), and one that
/// returns an array twice hands it to two renters at once. Were the transport's buffers among them, the corruption
/// would land in the harness, in whichever case of the process ran next: a body mismatch blamed on an unrelated case
/// whose replay then holds. With its own pool the transport cannot be one of those renters, and the damage stays with
/// the writer's own rentals.
/// </summary>
/// <remarks>Contract (that of <see cref="MemoryPool{T}"/>): <see cref="Rent"/> gives memory of at least the size asked
/// (up to <see cref="MaxBufferSize"/>) that nobody else holds until its owner is disposed; disposing an owner more than
/// once returns its array once. Thread-safe.</remarks>
internal sealed class TransportMemoryPool : MemoryPool<byte>
{
    private const int BlockSize = 4096;
    private readonly ArrayPool<byte> _arrays = ArrayPool<byte>.Create(
        maxArrayLength: 1024 * 1024,
        maxArraysPerBucket: 64
    );

    /// <summary>The pool every <see cref="FaultyTransport"/> buffers in.</summary>
    public static TransportMemoryPool Instance { get; } = new();

    /// <inheritdoc />
    public override int MaxBufferSize => int.MaxValue;

    /// <inheritdoc />
    public override IMemoryOwner<byte> Rent(int minBufferSize = -1) =>
        new Owner(_arrays, _arrays.Rent(minBufferSize < 0 ? BlockSize : minBufferSize));

    /// <summary>Nothing to release: the arrays belong to the pool for the process's life.</summary>
    protected override void Dispose(bool disposing) { }

    private sealed class Owner(ArrayPool<byte> arrays, byte[] array) : IMemoryOwner<byte>
    {
        private byte[]? _array = array;

        public Memory<byte> Memory =>
            Volatile.Read(ref _array) is { } a ? a : throw new ObjectDisposedException(nameof(TransportMemoryPool));

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _array, null) is { } a)
                arrays.Return(a);
        }
    }
}
