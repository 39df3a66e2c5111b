using System.Threading.Channels;

namespace AmqpConformance.Harness.Writers;

/// <summary>
/// The reference "background" writer, modelled on RabbitMQ.Client 7.x: callers copy the body into a buffer rented
/// from <see cref="WriterContext.Pool"/> and enqueue the command on a bounded <see cref="Channel{T}"/>
/// (capacity <see cref="WriterContext.QueueCapacity"/>, full mode Wait); one loop writes each command's frames
/// into <see cref="WriterContext.Output"/> and flushes once per command.
/// </summary>
/// <remarks>
/// <para><b>When <see cref="WriteAsync"/> completes:</b> as soon as the command is enqueued (immediately while the
/// queue has room; otherwise when room frees up). The bytes are not on the wire yet. The body was copied before the
/// hand-off, so the caller may reuse its memory at once, unless the command carried a
/// <see cref="OutgoingCommand.BodyOwner"/>: then no copy is made, and the owner is handed over and disposed after the
/// body's last byte is flushed.</para>
/// <para><b>Cancellation:</b> honoured only while waiting for queue space; a cancelled call enqueued nothing and its
/// command is released. Once enqueued, a command is written (or dropped if the output fails).</para>
/// <para><b>Faults:</b> when a write or flush throws, or a flush reports the reader completed, the loop stops for
/// good: the command in hand and everything queued are released (rentals returned, owners disposed) without being
/// written, calls waiting for space and all later calls fail with <see cref="FrameWriterFaultedException"/> (inner:
/// the original failure). Commands whose calls already completed (enqueued) are dropped: that is inherent to
/// completing on enqueue.</para>
/// <para><b>Disposal:</b> completes the queue, lets the loop write and flush everything queued, then returns. If that
/// takes longer than the drain timeout (<see cref="WriterContext.DrainTimeout"/>; the output is stalled) it cancels the
/// pending flush, the loop stops between commands, faults and releases what is left, and disposal waits at most
/// <see cref="WriterContext.GiveUpWait"/> for it before returning, so disposal never hangs and, unless the machine
/// keeps the loop off the CPU that long, nothing is written after it returns. Later calls throw
/// <see cref="ObjectDisposedException"/>.</para>
/// </remarks>
public sealed class BackgroundChannelWriter : IFrameWriter
{
    private readonly WriterContext _context;
    private readonly Channel<QueuedCommand> _queue;
    private readonly CancellationTokenSource _stop = new();
    private readonly TimeSpan _drainTimeout;
    private readonly Task _loop;
    private Exception? _faultCause;
    private int _disposed;
    private long _flushes;

    /// <summary>Creates the writer and starts its loop.</summary>
    /// <param name="context">Output, pool, frame_max and queue capacity.</param>
    /// <param name="drainTimeout">How long disposal waits for the queue to drain; null for the context's
    /// <see cref="WriterContext.DrainTimeout"/>.</param>
    public BackgroundChannelWriter(WriterContext context, TimeSpan? drainTimeout = null)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentOutOfRangeException.ThrowIfLessThan(context.QueueCapacity, 1);
        _context = context;
        _drainTimeout = drainTimeout ?? context.DrainTimeout;
        _queue = Channel.CreateBounded<QueuedCommand>(
            new BoundedChannelOptions(context.QueueCapacity)
            {
                FullMode = BoundedChannelFullMode.Wait,
                SingleReader = true,
                SingleWriter = false,
                AllowSynchronousContinuations = false,
            }
        );
        _loop = Task.Run(WriteLoopAsync);
    }

    /// <summary>How many flushes the loop has issued (one per command written).</summary>
    public long FlushCount => Interlocked.Read(ref _flushes);

    /// <summary>Copies the body (unless an owner came with it) and enqueues the command; completes once it is queued.
    /// See the type's remarks for cancellation and faults.</summary>
    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Volatile.Read(ref _faultCause) is not null || Volatile.Read(ref _disposed) != 0)
        {
            command.Release(_context.Pool);
            return ValueTask.FromException(StoppedException());
        }
        if (cancellationToken.IsCancellationRequested)
        {
            command.Release(_context.Pool);
            return ValueTask.FromCanceled(cancellationToken);
        }
        var queued = QueuedCommand.Create(command, _context.Pool);
        if (_queue.Writer.TryWrite(queued))
            return default;
        return WaitForSpaceAsync(queued, cancellationToken);
    }

    /// <summary>Waits for queue space without handing the command to the channel until there is some: a cancellable
    /// <see cref="ChannelWriter{T}.WriteAsync"/> can, when the token is cancelled while the wait is being registered,
    /// both throw <see cref="OperationCanceledException"/> and pass the item to the reader (dotnet/runtime#132230), so
    /// the command would be released here and written and released again by the loop. Waiting with
    /// <see cref="ChannelWriter{T}.WaitToWriteAsync"/> and then <see cref="ChannelWriter{T}.TryWrite"/> keeps the
    /// command in this method's hands until the channel has taken it.</summary>
    private async ValueTask WaitForSpaceAsync(QueuedCommand queued, CancellationToken cancellationToken)
    {
        try
        {
            while (await _queue.Writer.WaitToWriteAsync(cancellationToken).ConfigureAwait(false))
                if (_queue.Writer.TryWrite(queued))
                    return;
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            queued.Release(_context.Pool);
            throw;
        }
        queued.Release(_context.Pool); // the queue was completed: the writer stopped or was disposed
        throw StoppedException();
    }

    /// <summary>Drains what is queued, then stops; bounded by the drain timeout (see the type's remarks).</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            await WaitForLoopAsync().ConfigureAwait(false);
            return;
        }
        _queue.Writer.TryComplete();
        if (await WaitForLoopAsync().ConfigureAwait(false))
        {
            _stop.Dispose();
            return;
        }
        Interlocked.CompareExchange(
            ref _faultCause,
            new TimeoutException(
                $"DisposeAsync gave up draining after {_drainTimeout.TotalSeconds:0.###} s: the output did not accept the queued commands."
            ),
            null
        );
        _stop.Cancel();
        _context.Output.CancelPendingFlush();
        await WaitForLoopAsync(_context.GiveUpWait).ConfigureAwait(false);
    }

    private async Task<bool> WaitForLoopAsync(TimeSpan? timeout = null)
    {
        try
        {
            // The drain timeout runs on the context's clock (the harness may skip it); GiveUpWait is real time.
            await (
                timeout is { } realTime
                    ? _loop.WaitAsync(realTime)
                    : _loop.WaitAsync(_drainTimeout, _context.TimeProvider)
            ).ConfigureAwait(false);
            return true;
        }
        catch (TimeoutException)
        {
            return false;
        }
    }

    private async Task WriteLoopAsync()
    {
        var reader = _queue.Reader;
        var output = _context.Output;
        QueuedCommand current = default;
        bool holding = false;
        try
        {
            while (await reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                while (Volatile.Read(ref _faultCause) is null && reader.TryRead(out current))
                {
                    holding = true;
                    CommandFraming.Write(output, current.Command, current.Body, _context.FrameMax);
                    var result = await output.FlushAsync(_stop.Token).ConfigureAwait(false);
                    Interlocked.Increment(ref _flushes);
                    CommandFraming.ThrowIfNotDelivered(result);
                    holding = false;
                    current.Release(_context.Pool);
                }
                // A disposal that gave up stops the loop between commands (not only at its next wait).
                if (Volatile.Read(ref _faultCause) is not null)
                    throw new IOException("The writer stopped with commands still queued.");
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _faultCause, ex, null);
            if (holding)
                current.Release(_context.Pool);
            _queue.Writer.TryComplete();
            while (reader.TryRead(out var dropped))
                dropped.Release(_context.Pool);
        }
    }

    private Exception StoppedException()
    {
        var cause = Volatile.Read(ref _faultCause);
        if (cause is not null)
            return new FrameWriterFaultedException(
                $"The background writer has stopped ({cause.GetType().Name}: {cause.Message}); the command was not written.",
                cause
            );
        return new ObjectDisposedException(
            nameof(BackgroundChannelWriter),
            "The writer was disposed; the command was not written."
        );
    }

    /// <summary>A command in the queue: its frames plus either a pooled copy of the body or the owner's
    /// memory.</summary>
    private readonly struct QueuedCommand
    {
        private readonly byte[]? _bodyCopy;
        private readonly int _bodyLength;

        private QueuedCommand(OutgoingCommand command, byte[]? bodyCopy, int bodyLength)
        {
            Command = command;
            _bodyCopy = bodyCopy;
            _bodyLength = bodyLength;
        }

        public OutgoingCommand Command { get; }

        public ReadOnlySpan<byte> Body => _bodyCopy is null ? Command.Body.Span : _bodyCopy.AsSpan(0, _bodyLength);

        public static QueuedCommand Create(OutgoingCommand command, System.Buffers.ArrayPool<byte> pool)
        {
            if (command.BodyOwner is not null || command.Body.IsEmpty)
                return new QueuedCommand(command, null, 0);
            int length = command.Body.Length;
            byte[] copy = pool.Rent(length);
            command.Body.Span.CopyTo(copy);
            return new QueuedCommand(command, copy, length);
        }

        public void Release(System.Buffers.ArrayPool<byte> pool)
        {
            if (_bodyCopy is not null)
                pool.Return(_bodyCopy);
            Command.Release(pool);
        }
    }
}
