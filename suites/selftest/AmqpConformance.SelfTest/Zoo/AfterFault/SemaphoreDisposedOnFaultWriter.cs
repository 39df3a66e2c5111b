using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer (lock, write, flush, complete after the flush) that, when its output fails, records the
/// fault, releases the command and disposes its <see cref="SemaphoreSlim"/> instead of releasing it: "nothing will write again,
/// free the wait handle, and waiters fail fast on a disposed lock". But <see cref="SemaphoreSlim.Dispose()"/> wakes no one: callers
/// already parked in <see cref="SemaphoreSlim.WaitAsync(CancellationToken)"/> are dropped from its list and their calls never
/// complete, their commands never released. Calls made after the fault see it on entry and fail right; disposal after a fault
/// returns at once (the lock is gone), and without a fault drains as it should.
/// </summary>
public sealed class SemaphoreDisposedOnFaultWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "semaphore-disposed-on-fault";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    /// <inheritdoc />
    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (ZooHelpers.RefuseOnEntry(Stopped(), command, context.Pool, cancellationToken) is { } refused)
        {
            await refused.ConfigureAwait(false);
            return;
        }
        try
        {
            await _lock.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is OperationCanceledException or ObjectDisposedException)
        {
            command.Release(context.Pool);
            if (ex is ObjectDisposedException) throw Stopped() ?? ex;
            throw;
        }
        bool lockDisposed = false;
        try
        {
            if (Stopped() is { } stopped)
            {
                command.Release(context.Pool);
                throw stopped;
            }
            try
            {
                CommandFraming.Write(context.Output, command, command.Body.Span, context.FrameMax);
                CommandFraming.ThrowIfNotDelivered(await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
            }
            catch (Exception ex)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                command.Release(context.Pool);
                // BUG: disposing the semaphore abandons the callers parked on it.
                _lock.Dispose();
                lockDisposed = true;
                throw ZooHelpers.Faulted(Name, ex);
            }
            command.Release(context.Pool);
        }
        finally
        {
            if (!lockDisposed) _lock.Release();
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        if (Volatile.Read(ref _fault) is not null) return; // the lock was disposed with the fault: nothing left to drain
        try
        {
            await _lock.DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null)).ConfigureAwait(false);
        }
        catch (ObjectDisposedException)
        {
            // The call given up on faulted and disposed the lock: it is done with the output.
        }
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
