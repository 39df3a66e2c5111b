using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: An inline (lock, write, flush, release) writer with a hot path for the most common call: a
/// publish made without a cancellation token (<c>BasicPublishAsync(...)</c> with the default token). Such a caller can
/// never cancel, so the hot path skips the async wait machinery: it tries the lock with <c>Wait(0)</c> and, if it got
/// it, writes at once. The hot path was added as an optimisation beside the original slow path and lost its checks on
/// the way: it never asks whether the writer has stopped (faulted or disposed). So after a reset, or after
/// DisposeAsync, a call with the default token writes its command into the dead (or no longer owned) output and, if
/// that flush happens to succeed, reports success.
/// </summary>
public sealed class DefaultTokenFastPathWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "default-token-fast-path";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    /// <inheritdoc />
    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        // Hot path: nobody can cancel this call, so there is no registration to make and no need for WaitAsync when the
        // lock is free. BUG: no Stopped() check here (the slow path makes two).
        if (!cancellationToken.CanBeCanceled && _lock.Wait(0))
            return WriteHeldAsync(command);
        return WriteSlowAsync(command, cancellationToken);
    }

    private async ValueTask WriteSlowAsync(OutgoingCommand command, CancellationToken cancellationToken)
    {
        if (Stopped() is { } early)
        {
            command.Release(context.Pool);
            throw early;
        }
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        if (Stopped() is { } stopped)
        {
            command.Release(context.Pool);
            _lock.Release();
            throw stopped;
        }
        await WriteHeldAsync(command).ConfigureAwait(false);
    }

    /// <summary>Writes and flushes <paramref name="command"/> with the lock held, then lets go of the lock.</summary>
    private async ValueTask WriteHeldAsync(OutgoingCommand command)
    {
        try
        {
            await ZooHelpers
                .WriteFlushReleaseAsync(context, command, Name, ex => Interlocked.CompareExchange(ref _fault, ex, null))
                .ConfigureAwait(false);
        }
        finally
        {
            _lock.Release();
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        await _lock
            .DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null))
            .ConfigureAwait(false);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
