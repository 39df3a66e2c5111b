using System.IO.Pipelines;
using System.Threading.Channels;
using System.Threading.Tasks.Sources;

namespace AmqpConformance.Harness.Writers;

/// <summary>
/// The coalescing reference writer (this project's own design): an uncontended caller writes and flushes its own
/// command; under contention callers enqueue their command without copying the body, and one loop takes everything
/// queued, writes it all into <see cref="WriterContext.Output"/> in FIFO order, flushes once for the whole batch, then
/// completes each caller. FIFO like the background writer, zero copy like the inline writer, no lock hand-off per call,
/// and fewer flushes than either when callers pile up behind a slow output.
/// </summary>
/// <remarks>
/// <para><b>When <see cref="WriteAsync"/> completes:</b> after the flush that carried the command's bytes, so the
/// writer no longer needs the body when the caller resumes (no copy is ever made). The body owner, if any, is
/// disposed just before the caller is completed.</para>
/// <para><b>Fast path:</b> when nothing is queued and nobody is writing, the caller writes and flushes its own command
/// at once (like the inline writer), with no hand-off; once writers contend, calls queue up and the loop writes them in
/// batches. A gate shared by the two paths keeps one writer on the output at a time; FIFO holds because a fast-path
/// write only starts when the queue is empty.</para>
/// <para><b>Batches:</b> a batch is everything queued when the loop looks, cut off once it holds
/// <see cref="DefaultMaxBatchBytes"/> wire bytes (or the size given to the constructor), so the output never buffers
/// much more than that before a flush. The queue itself is unbounded, but each entry is a caller awaiting its own
/// completion, so it never holds more commands than there are concurrent callers.</para>
/// <para><b>Cancellation is all or nothing:</b> a queued call cancelled before the loop starts writing its command is
/// completed with <see cref="OperationCanceledException"/> at once, its command released and later skipped by the
/// loop; once the loop started writing it, the token is ignored and the call completes normally. A fast-path call
/// starts writing at once, so only a token already cancelled on entry stops it.</para>
/// <para><b>Faults:</b> when a write or flush throws, or a flush reports the reader completed, the writer stops for
/// good: the batch in hand, everything queued and all later calls fail with <see cref="FrameWriterFaultedException"/>
/// (inner: the original failure), and their commands are released.</para>
/// <para><b>Disposal:</b> stops accepting calls, lets the loop write and flush everything queued, then returns; if that
/// takes longer than the drain timeout (<see cref="WriterContext.DrainTimeout"/>) the pending flush is cancelled, the
/// loop stops between commands, the remaining calls fault, and disposal waits at most
/// <see cref="WriterContext.GiveUpWait"/> (twice: the loop, then the output gate) for a write in progress to end. Later
/// calls get <see cref="ObjectDisposedException"/>.</para>
/// <para><b>Completion and allocation:</b> pending entries are pooled <see cref="IValueTaskSource"/>s, so a call that
/// is not cancelled allocates nothing of its own. The callers of one flushed batch are completed together by one
/// thread-pool work item, their continuations running one after another there (never on the writer's loop): one thread
/// hop per batch rather than per call.</para>
/// </remarks>
public sealed partial class CoalescingWriter : IFrameWriter
{
    /// <summary>Wire bytes after which a batch is cut off and flushed: 1 MiB.</summary>
    public const int DefaultMaxBatchBytes = 1 << 20;

    private const int MaxPooledEntries = 256;

    private readonly WriterContext _context;
    private readonly Channel<PendingWrite> _queue;
    private readonly Stack<PendingWrite> _entryPool = new();
    private readonly Stack<CompletionBatch> _batchPool = new();
    private readonly CancellationTokenSource _stop = new();
    private readonly SemaphoreSlim _outputGate = new(1, 1); // held by whoever writes to the output: the loop, or a caller on the fast path
    private readonly TimeSpan _drainTimeout;
    private readonly long _maxBatchBytes;
    private readonly Task _loop;
    private Exception? _faultCause;
    private int _disposed;
    private int _queuedCount; // entries in _queue (the single-reader channel cannot count them itself)
    private long _flushes;
    private long _batchedCommands;

    /// <summary>Creates the writer and starts its loop.</summary>
    /// <param name="context">Output, pool and frame_max (<see cref="WriterContext.QueueCapacity"/> is not
    /// used).</param>
    /// <param name="maxBatchBytes">Wire bytes after which a batch is flushed; null for
    /// <see cref="DefaultMaxBatchBytes"/>.</param>
    /// <param name="drainTimeout">How long disposal waits for the queue to drain; null for the context's
    /// <see cref="WriterContext.DrainTimeout"/>.</param>
    public CoalescingWriter(WriterContext context, int? maxBatchBytes = null, TimeSpan? drainTimeout = null)
    {
        ArgumentNullException.ThrowIfNull(context);
        _context = context;
        _maxBatchBytes = maxBatchBytes ?? DefaultMaxBatchBytes;
        ArgumentOutOfRangeException.ThrowIfLessThan(_maxBatchBytes, 1, nameof(maxBatchBytes));
        _drainTimeout = drainTimeout ?? context.DrainTimeout;
        _queue = Channel.CreateUnbounded<PendingWrite>(
            new UnboundedChannelOptions
            {
                SingleReader = true,
                SingleWriter = false,
                AllowSynchronousContinuations = false,
            }
        );
        _loop = Task.Run(WriteLoopAsync);
    }

    /// <summary>How many flushes have been issued (one per batch, or per fast-path call).</summary>
    public long FlushCount => Interlocked.Read(ref _flushes);

    /// <summary>How many commands were written so far (divide by <see cref="FlushCount"/> for the mean batch
    /// size).</summary>
    public long CommandsWritten => Interlocked.Read(ref _batchedCommands);

    /// <summary>Enqueues the command (no copy); completes after the flush that carried it. See the type's
    /// remarks.</summary>
    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (StoppedException() is { } stopped)
        {
            command.Release(_context.Pool);
            return ValueTask.FromException(stopped);
        }
        if (cancellationToken.IsCancellationRequested)
        {
            command.Release(_context.Pool);
            return ValueTask.FromCanceled(cancellationToken);
        }
        if (Volatile.Read(ref _queuedCount) == 0 && _outputGate.Wait(0))
            return WriteDirect(command);
        PendingWrite entry = RentEntry();
        short version = entry.Start(command, cancellationToken);
        Interlocked.Increment(ref _queuedCount);
        if (!_queue.Writer.TryWrite(entry))
        {
            Interlocked.Decrement(ref _queuedCount);
            // The queue was completed (fault or disposal) after the check above: settle the entry here.
            if (entry.TryStartWriting())
            {
                entry.ReleaseCommand(_context.Pool);
                entry.SignalCompletion(StoppedException() ?? new ObjectDisposedException(nameof(CoalescingWriter)));
            }
            entry.ReleaseReference();
        }
        return new ValueTask(entry, version);
    }

    /// <summary>The fast path: nothing is queued and nobody is writing, so the caller writes and flushes its own
    /// command (holding the output gate), with no hand-off. Always releases the gate and the command exactly
    /// once.</summary>
    private ValueTask WriteDirect(OutgoingCommand command)
    {
        bool handedOff = false;
        try
        {
            if (StoppedException() is { } stopped)
            {
                command.Release(_context.Pool);
                return ValueTask.FromException(stopped);
            }
            CommandFraming.Write(_context.Output, command, command.Body.Span, _context.FrameMax);
            ValueTask<FlushResult> flush = _context.Output.FlushAsync(CancellationToken.None);
            if (flush.IsCompletedSuccessfully)
            {
                FinishDirect(flush.Result, command);
                return default;
            }
            handedOff = true;
            return AwaitDirectFlushAsync(flush, command);
        }
        catch (Exception ex)
        {
            return ValueTask.FromException(FaultDirect(ex, command));
        }
        finally
        {
            if (!handedOff)
                _outputGate.Release();
        }
    }

    private async ValueTask AwaitDirectFlushAsync(ValueTask<FlushResult> flush, OutgoingCommand command)
    {
        try
        {
            FinishDirect(await flush.ConfigureAwait(false), command);
        }
        catch (Exception ex)
        {
            throw FaultDirect(ex, command);
        }
        finally
        {
            _outputGate.Release();
        }
    }

    private void FinishDirect(FlushResult result, OutgoingCommand command)
    {
        Interlocked.Increment(ref _flushes);
        CommandFraming.ThrowIfNotDelivered(result);
        Interlocked.Increment(ref _batchedCommands);
        command.Release(_context.Pool);
    }

    /// <summary>A fast-path write failed: stop the writer (the loop fails whatever is queued) and release the
    /// command.</summary>
    private FrameWriterFaultedException FaultDirect(Exception cause, OutgoingCommand command)
    {
        Interlocked.CompareExchange(ref _faultCause, cause, null);
        _queue.Writer.TryComplete();
        command.Release(_context.Pool);
        return new FrameWriterFaultedException(
            $"The coalescing writer's output failed while writing this command ({cause.GetType().Name}: {cause.Message}); the writer has stopped.",
            cause
        );
    }

    private async Task WriteLoopAsync()
    {
        var reader = _queue.Reader;
        PipeWriter output = _context.Output;
        CompletionBatch batch = RentBatch();
        try
        {
            while (await reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                await _outputGate.WaitAsync(_stop.Token).ConfigureAwait(false);
                try
                {
                    if (Volatile.Read(ref _faultCause) is not null)
                        throw new IOException("A fast-path write failed."); // already recorded; fail what is queued
                    long bytes = 0;
                    // A disposal that gave up (or a fault) stops the batch between commands, not after it.
                    while (
                        bytes < _maxBatchBytes
                        && Volatile.Read(ref _faultCause) is null
                        && reader.TryRead(out var entry)
                    )
                    {
                        Interlocked.Decrement(ref _queuedCount);
                        if (!entry.TryStartWriting())
                        {
                            entry.ReleaseReference(); // cancelled while queued: already released and completed
                            continue;
                        }
                        batch.Add(entry, null);
                        CommandFraming.Write(output, entry.Command, entry.Command.Body.Span, _context.FrameMax);
                        bytes += entry.Command.WireLength(_context.FrameMax);
                    }
                    if (Volatile.Read(ref _faultCause) is not null)
                        throw new IOException("The writer stopped while writing a batch.");
                    if (batch.Count == 0)
                        continue;
                    var result = await output.FlushAsync(_stop.Token).ConfigureAwait(false);
                    Interlocked.Increment(ref _flushes);
                    CommandFraming.ThrowIfNotDelivered(result);
                }
                catch (Exception ex)
                {
                    // Recorded while the gate is still held: a fast-path caller takes the gate as soon as it is
                    // released and must find the writer stopped, or it writes after the output has failed.
                    Interlocked.CompareExchange(ref _faultCause, ex, null);
                    throw;
                }
                finally
                {
                    _outputGate.Release();
                }
                Interlocked.Add(ref _batchedCommands, batch.Count);
                batch.ReleaseCommands(_context.Pool);
                ThreadPool.UnsafeQueueUserWorkItem(batch, preferLocal: false);
                batch = RentBatch();
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _faultCause, ex, null);
            _queue.Writer.TryComplete();
            batch.FailAll(StoppedException);
            while (reader.TryRead(out var queued))
            {
                if (queued.TryStartWriting())
                    batch.Add(queued, StoppedException());
                else
                    queued.ReleaseReference();
            }
            batch.ReleaseCommands(_context.Pool);
            ThreadPool.UnsafeQueueUserWorkItem(batch, preferLocal: false);
            return;
        }
        ReturnBatch(batch);
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
        // The loop drains the queue; the gate is then taken once so that a fast-path write in progress ends first.
        if (
            await WaitForLoopAsync().ConfigureAwait(false)
            && await _outputGate.WaitAsync(_drainTimeout, _context.TimeProvider).ConfigureAwait(false)
        )
        {
            _outputGate.Release();
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
        if (await _outputGate.WaitAsync(_context.GiveUpWait).ConfigureAwait(false))
            _outputGate.Release();
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

    private Exception? StoppedException()
    {
        var cause = Volatile.Read(ref _faultCause);
        if (cause is not null)
            return new FrameWriterFaultedException(
                $"The coalescing writer has stopped ({cause.GetType().Name}: {cause.Message}); the command was not written.",
                cause
            );
        if (Volatile.Read(ref _disposed) != 0)
            return new ObjectDisposedException(
                nameof(CoalescingWriter),
                "The writer was disposed; the command was not written."
            );
        return null;
    }

    private PendingWrite RentEntry()
    {
        lock (_entryPool)
        {
            if (_entryPool.TryPop(out var entry))
                return entry;
        }
        return new PendingWrite(this);
    }

    private void ReturnEntry(PendingWrite entry)
    {
        lock (_entryPool)
        {
            if (_entryPool.Count < MaxPooledEntries)
                _entryPool.Push(entry);
        }
    }

    private CompletionBatch RentBatch()
    {
        lock (_batchPool)
        {
            if (_batchPool.TryPop(out var batch))
                return batch;
        }
        return new CompletionBatch(this);
    }

    private void ReturnBatch(CompletionBatch batch)
    {
        lock (_batchPool)
        {
            if (_batchPool.Count < 8)
                _batchPool.Push(batch);
        }
    }
}
