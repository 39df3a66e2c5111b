using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Cancellation;

/// <summary>
/// DELIBERATELY BROKEN: An inline writer (lock, write, flush, release; complete after the flush) that does not want to
/// make a caller who has given up wait on a flush that may block for a long time under backpressure: after writing the
/// command it looks at the caller's token once more and, if it fired, releases the command and throws
/// OperationCanceledException instead of flushing. But the frames are already committed to the PipeWriter: the next
/// flush (anybody's) carries them, so the broker gets a publish whose caller was told it was cancelled. The check sits
/// one line too late; before the Write it would be right. It shows only when the cancellation lands after the lock was
/// granted and before the Write finished.
/// </summary>
public sealed class CancelCheckedBeforeFlushWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "cancel-checked-before-flush";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    /// <inheritdoc />
    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(context.Pool);
            throw early;
        }
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        try
        {
            if (Stopped() is { } stopped)
            {
                command.Release(context.Pool);
                throw stopped;
            }
            ZooHelpers.WriteOrStop(context, command, Name, ex => Interlocked.CompareExchange(ref _fault, ex, null));
            // BUG: the caller gave up; spare it the flush. The frames are in the pipe already.
            if (cancellationToken.IsCancellationRequested)
            {
                command.Release(context.Pool);
                throw new OperationCanceledException(cancellationToken);
            }
            try
            {
                CommandFraming.ThrowIfNotDelivered(
                    await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                );
            }
            catch (Exception ex)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                command.Release(context.Pool);
                throw ZooHelpers.Faulted(Name, ex);
            }
            command.Release(context.Pool);
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
