using System.IO.Pipelines;

namespace AmqpConformance.Harness.Writers;

/// <summary>
/// The reference "inline" writer, modelled on rabbitmq-dotnet-client PR #1912: each caller takes a
/// <see cref="SemaphoreSlim"/>(1, 1), writes its command's frames and streams the body straight from its own memory
/// into <see cref="WriterContext.Output"/> (no intermediate copy), flushes, releases the command and the lock.
/// </summary>
/// <remarks>
/// <para><b>When <see cref="WriteAsync"/> completes:</b> after the command's flush completed, so its bytes have been
/// handed to the output's reader; from then on the writer never touches the body. The body owner, if any, is
/// disposed just before completion.</para>
/// <para><b>Cancellation:</b> honoured only before any byte is written, that is while waiting for the lock. Once the
/// lock is taken the command is written and flushed whole (the flush is not cancellable by the caller), or the
/// writer faults; so a cancelled call never leaves a partial frame nor a publish on the wire.</para>
/// <para><b>Faults:</b> when a write or flush throws, or a flush reports the reader completed, the writer stops for
/// good: the failing call and every later (or waiting) call fail with <see cref="FrameWriterFaultedException"/>
/// (inner: the original failure) and their commands are released without writing a byte.</para>
/// <para><b>Disposal:</b> waits for the call holding the lock to finish, up to the drain timeout
/// (<see cref="WriterContext.DrainTimeout"/>, on <see cref="WriterContext.TimeProvider"/>'s clock); if the output is
/// stalled it then cancels the pending flush (that call faults) and waits at most
/// <see cref="WriterContext.GiveUpWait"/> of real time for that call to let go, so disposal never hangs. Calls still
/// waiting for the lock, and later calls, get <see cref="ObjectDisposedException"/> and write nothing.</para>
/// </remarks>
public sealed class InlineSemaphoreWriter : IFrameWriter
{
    private readonly WriterContext _context;
    private readonly SemaphoreSlim _lock = new(1, 1);
    private readonly TimeSpan _drainTimeout;
    private Exception? _faultCause;
    private int _disposed;
    private long _flushes;

    /// <summary>Creates the writer.</summary>
    /// <param name="context">Output, pool and frame_max (<see cref="WriterContext.QueueCapacity"/> is not
    /// used).</param>
    /// <param name="drainTimeout">How long disposal waits for the call in progress; null for the context's
    /// <see cref="WriterContext.DrainTimeout"/>.</param>
    public InlineSemaphoreWriter(WriterContext context, TimeSpan? drainTimeout = null)
    {
        ArgumentNullException.ThrowIfNull(context);
        _context = context;
        _drainTimeout = drainTimeout ?? context.DrainTimeout;
    }

    /// <summary>How many flushes have been issued (one per command written).</summary>
    public long FlushCount => Interlocked.Read(ref _flushes);

    /// <summary>Takes the lock, writes the whole command, flushes; completes after the flush. See the type's
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
        if (_lock.Wait(0))
            return WriteHoldingLock(command);
        return WaitThenWriteAsync(command, cancellationToken);
    }

    private async ValueTask WaitThenWriteAsync(OutgoingCommand command, CancellationToken cancellationToken)
    {
        try
        {
            await _lock.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            command.Release(_context.Pool);
            throw;
        }
        await WriteHoldingLock(command).ConfigureAwait(false);
    }

    /// <summary>Runs with the lock held; always releases the lock and the command exactly once.</summary>
    private ValueTask WriteHoldingLock(OutgoingCommand command)
    {
        bool handedOff = false;
        try
        {
            if (StoppedException() is { } stopped)
            {
                command.Release(_context.Pool);
                return ValueTask.FromException(stopped);
            }
            PipeWriter output = _context.Output;
            CommandFraming.Write(output, command, command.Body.Span, _context.FrameMax);
            ValueTask<FlushResult> flush = output.FlushAsync(CancellationToken.None);
            if (flush.IsCompletedSuccessfully)
            {
                Interlocked.Increment(ref _flushes);
                CommandFraming.ThrowIfNotDelivered(flush.Result);
                command.Release(_context.Pool);
                return default;
            }
            handedOff = true;
            return AwaitFlushAsync(flush, command);
        }
        catch (Exception ex)
        {
            return ValueTask.FromException(Fault(ex, command));
        }
        finally
        {
            if (!handedOff)
                _lock.Release();
        }
    }

    private async ValueTask AwaitFlushAsync(ValueTask<FlushResult> flush, OutgoingCommand command)
    {
        try
        {
            var result = await flush.ConfigureAwait(false);
            Interlocked.Increment(ref _flushes);
            CommandFraming.ThrowIfNotDelivered(result);
            command.Release(_context.Pool);
        }
        catch (Exception ex)
        {
            throw Fault(ex, command);
        }
        finally
        {
            _lock.Release();
        }
    }

    private FrameWriterFaultedException Fault(Exception cause, OutgoingCommand command)
    {
        Interlocked.CompareExchange(ref _faultCause, cause, null);
        command.Release(_context.Pool);
        return new FrameWriterFaultedException(
            $"The inline writer's output failed while writing this command ({cause.GetType().Name}: {cause.Message}); the writer has stopped.",
            cause
        );
    }

    /// <summary>Waits (bounded) for the call in progress, then stops the writer. See the type's remarks.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        bool acquired = await _lock.WaitAsync(_drainTimeout, _context.TimeProvider).ConfigureAwait(false);
        if (!acquired)
        {
            Interlocked.CompareExchange(
                ref _faultCause,
                new TimeoutException(
                    $"DisposeAsync gave up after {_drainTimeout.TotalSeconds:0.###} s: the output did not accept the command in progress."
                ),
                null
            );
            _context.Output.CancelPendingFlush();
            // The flush is cancelled: the call in progress ends as soon as its thread runs (real time, as GiveUpWait
            // says).
            acquired = await _lock.WaitAsync(_context.GiveUpWait).ConfigureAwait(false);
        }
        if (acquired)
            _lock.Release();
    }

    private Exception? StoppedException()
    {
        var cause = Volatile.Read(ref _faultCause);
        if (cause is not null)
            return new FrameWriterFaultedException(
                $"The inline writer has stopped ({cause.GetType().Name}: {cause.Message}); the command was not written.",
                cause
            );
        if (Volatile.Read(ref _disposed) != 0)
            return new ObjectDisposedException(
                nameof(InlineSemaphoreWriter),
                "The writer was disposed; the command was not written."
            );
        return null;
    }
}
