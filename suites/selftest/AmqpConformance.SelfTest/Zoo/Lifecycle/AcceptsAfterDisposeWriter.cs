using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Lifecycle;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that, once disposed, drops publishes quietly ("the connection is closing
/// anyway"): it releases the command and completes the call successfully instead of throwing
/// <see cref="ObjectDisposedException"/>. Every call made before disposal is handled correctly; only calls made during
/// or after disposal are lost silently.
/// </summary>
public sealed class AcceptsAfterDisposeWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "accepts-after-dispose";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (DroppedBecauseDisposed(command))
            return;
        if (Volatile.Read(ref _fault) is { } cause)
        {
            command.Release(context.Pool);
            throw ZooHelpers.Faulted(Name, cause);
        }
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        try
        {
            if (DroppedBecauseDisposed(command))
                return;
            if (Volatile.Read(ref _fault) is { } stopped)
            {
                command.Release(context.Pool);
                throw ZooHelpers.Faulted(Name, stopped);
            }
            await ZooHelpers
                .WriteFlushReleaseAsync(context, command, Name, ex => Interlocked.CompareExchange(ref _fault, ex, null))
                .ConfigureAwait(false);
        }
        finally
        {
            _lock.Release();
        }
    }

    private bool DroppedBecauseDisposed(OutgoingCommand command)
    {
        if (Volatile.Read(ref _disposed) == 0)
            return false;
        // BUG: a publish on a disposed writer is released and reported as sent, instead of failing with
        // ObjectDisposedException.
        command.Release(context.Pool);
        return true;
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        await _lock
            .DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null))
            .ConfigureAwait(false);
    }
}
