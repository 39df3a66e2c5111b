using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer (lock, write, flush, complete after the flush) that, when its output fails,
/// records the fault, releases the command and disposes its <see cref="SemaphoreSlim"/> instead of releasing it:
/// "nothing will write again, free the wait handle, and waiters fail fast on a disposed lock". But
/// <see cref="SemaphoreSlim.Dispose()"/> wakes no one: callers already parked in
/// <see cref="SemaphoreSlim.WaitAsync(CancellationToken)"/> are dropped from its list and their calls never complete,
/// their commands never released. Calls made after the fault see it on entry and fail right; disposal after a fault
/// returns at once (the lock is gone), and without a fault drains as it should.
/// </summary>
public sealed class SemaphoreDisposedOnFaultWriter(WriterContext context)
    : InlineZooWriter(context, "semaphore-disposed-on-fault")
{
    private int _lockDisposed;

    /// <inheritdoc />
    protected override async Task EnterAsync(CancellationToken cancellationToken)
    {
        try
        {
            await Lock.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (ObjectDisposedException disposed)
        {
            throw Stopped() ?? disposed;
        }
    }

    /// <inheritdoc />
    protected override void OnFault(Exception failure)
    {
        // BUG: disposing the semaphore abandons the callers parked on it.
        Lock.Dispose();
        Volatile.Write(ref _lockDisposed, 1);
    }

    /// <inheritdoc />
    protected override void Exit()
    {
        if (Volatile.Read(ref _lockDisposed) == 0)
            base.Exit();
    }

    /// <inheritdoc />
    public override async ValueTask DisposeAsync()
    {
        if (Volatile.Read(ref _lockDisposed) != 0)
        {
            MarkDisposed(); // the lock was disposed with the fault: nothing left to drain
            return;
        }
        try
        {
            await base.DisposeAsync().ConfigureAwait(false);
        }
        catch (ObjectDisposedException)
        {
            // The call given up on faulted and disposed the lock: it is done with the output.
        }
    }
}
