using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Bodies;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue) that copies bodies of up to 64 KiB into a
/// per-connection ring buffer instead of renting a buffer per body (larger bodies, and calls that find the queue full,
/// get a pooled copy). A reservation finds room from the write position (head) and the oldest live copy's start (tail),
/// and takes "head == tail" for an empty ring, as ring buffers do; but it accepts a copy that ends exactly at the tail
/// (<c>&gt;=</c> where it needed <c>&gt;</c>), so after an exact fill head == tail means full, and the next reservation
/// writes over the oldest copies the loop has not written yet. A caller publishing bodies of one size while the output
/// is slow fills it exactly as soon as the ring wraps onto a copy of that size; bodies whose lengths never fill the gap
/// to the byte go out right.
/// </summary>
public sealed class RingCopyExactFillWriter : IFrameWriter
{
    /// <summary>The ring's size, and the largest body copied into it.</summary>
    public const int RingSize = 64 * 1024;

    private const string Name = "ring-copy-exact-fill";
    private readonly WriterContext _context;
    private readonly byte[] _ring = new byte[RingSize];
    private readonly Queue<int> _live = new(); // offsets of the copies in the ring, oldest first
    private readonly object _sync = new();
    private int _head;
    private readonly Channel<Entry> _queue;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    /// <summary>Creates the writer and starts its loop.</summary>
    public RingCopyExactFillWriter(WriterContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        _context = context;
        _queue = Channel.CreateBounded<Entry>(
            new BoundedChannelOptions(context.QueueCapacity)
            {
                FullMode = BoundedChannelFullMode.Wait,
                SingleReader = true,
                SingleWriter = false,
                AllowSynchronousContinuations = false,
            }
        );
        _loop = Task.Run(LoopAsync);
    }

    /// <inheritdoc />
    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (ZooHelpers.RefuseOnEntry(Stopped(), command, _context.Pool, cancellationToken) is { } refused)
            return refused;
        int length = command.Body.Length;
        if (command.BodyOwner is null && length > 0 && length <= RingSize)
        {
            lock (_sync)
            {
                int previousHead = _head;
                int offset = Reserve(length);
                if (offset >= 0)
                {
                    command.Body.Span.CopyTo(_ring.AsSpan(offset));
                    if (_queue.Writer.TryWrite(new Entry(command, offset, null)))
                        return default;
                    Unreserve(previousHead);
                }
            }
        }
        var staged = Entry.Copy(command, _context.Pool);
        if (_queue.Writer.TryWrite(staged))
            return default;
        return WaitForSpaceAsync(staged, cancellationToken);
    }

    /// <summary>Finds <paramref name="length"/> bytes in the ring; the offset, or -1 if there is no room. Under the
    /// lock.</summary>
    private int Reserve(int length)
    {
        int tail = _live.Count > 0 ? _live.Peek() : _head;
        int offset;
        if (_head >= tail) // BUG: after an exact fill head == tail with copies live: the ring is full, not empty
        {
            if (RingSize - _head >= length)
                offset = _head;
            else if (tail >= length)
                offset = 0; // BUG: >= lets the copy end exactly at the tail
            else
                return -1;
        }
        else if (tail - _head >= length)
            offset = _head; // BUG: likewise
        else
            return -1;
        _head = offset + length;
        _live.Enqueue(offset);
        return offset;
    }

    /// <summary>Takes back the newest reservation (its copy was not queued). Under the lock.</summary>
    private void Unreserve(int previousHead)
    {
        var kept = _live.ToArray()[..^1];
        _live.Clear();
        foreach (int offset in kept)
            _live.Enqueue(offset);
        _head = previousHead;
    }

    private void Release(in Entry entry)
    {
        if (entry.RingOffset >= 0)
            lock (_sync)
            {
                _live.Dequeue(); // copies leave the ring in queue order
                if (_live.Count == 0)
                    _head = 0;
            }
        entry.Release(_context.Pool);
    }

    private async ValueTask WaitForSpaceAsync(Entry staged, CancellationToken cancellationToken)
    {
        try
        {
            while (await _queue.Writer.WaitToWriteAsync(cancellationToken).ConfigureAwait(false))
                if (_queue.Writer.TryWrite(staged))
                    return;
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            Release(staged);
            throw;
        }
        Release(staged);
        throw Stopped() ?? ZooHelpers.Disposed(Name);
    }

    private async Task LoopAsync()
    {
        var reader = _queue.Reader;
        Entry current = default;
        bool holding = false;
        try
        {
            while (await reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                while (Volatile.Read(ref _fault) is null && reader.TryRead(out current))
                {
                    holding = true;
                    var body =
                        current.RingOffset >= 0
                            ? _ring.AsSpan(current.RingOffset, current.Command.Body.Length)
                            : current.Body;
                    CommandFraming.Write(_context.Output, current.Command, body, _context.FrameMax);
                    CommandFraming.ThrowIfNotDelivered(
                        await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false)
                    );
                    holding = false;
                    Release(current);
                }
                if (Volatile.Read(ref _fault) is not null)
                    throw new IOException("The writer stopped with commands still queued.");
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            if (holding)
                Release(current);
            _queue.Writer.TryComplete();
            while (reader.TryRead(out var dropped))
                Release(dropped);
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _queue.Writer.TryComplete();
        if (await _loop.EndsWithinAsync(_context, gaveUp: false).ConfigureAwait(false))
            return;
        await _loop
            .GiveUpOnAsync(_context, _stop, reason => Interlocked.CompareExchange(ref _fault, reason, null))
            .ConfigureAwait(false);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));

    /// <summary>A queued command: its body in the ring (at <see cref="RingOffset"/>), in a pooled copy, or the owner's
    /// memory.</summary>
    private readonly record struct Entry(OutgoingCommand Command, int RingOffset, byte[]? PooledCopy)
    {
        public ReadOnlySpan<byte> Body =>
            PooledCopy is null ? Command.Body.Span : PooledCopy.AsSpan(0, Command.Body.Length);

        public static Entry Copy(OutgoingCommand command, ArrayPool<byte> pool)
        {
            if (command.BodyOwner is not null || command.Body.IsEmpty)
                return new Entry(command, -1, null);
            byte[] copy = pool.Rent(command.Body.Length);
            command.Body.Span.CopyTo(copy);
            return new Entry(command, -1, copy);
        }

        public void Release(ArrayPool<byte> pool)
        {
            if (PooledCopy is not null)
                pool.Return(PooledCopy);
            Command.Release(pool);
        }
    }
}
