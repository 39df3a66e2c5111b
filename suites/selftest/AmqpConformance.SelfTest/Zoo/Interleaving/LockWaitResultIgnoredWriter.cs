using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Interleaving;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer (lock, write, flush, complete after the flush) whose PR added a 30 s limit on the wait
/// for the write lock, on <see cref="WriterContext.TimeProvider"/>'s clock, "so a wedged connection cannot park publishers for
/// ever". The wait returns whether it got the lock, as <see cref="SemaphoreSlim.WaitAsync(TimeSpan)"/> does, and the call site
/// discards the bool: a call that waited more than 30 s behind other calls' stalled flushes goes on without the lock, writes
/// into the output while the holder's flush is pending, and its <c>Release</c> then lets a third caller in alongside the
/// holder (or throws <see cref="SemaphoreFullException"/>). Calls that get the lock within 30 s are handled right.
/// </summary>
public sealed class LockWaitResultIgnoredWriter(WriterContext context) : IFrameWriter
{
    /// <summary>How long a call waits for the write lock before it (wrongly) goes on.</summary>
    public static readonly TimeSpan LockTimeout = TimeSpan.FromSeconds(30);

    private const string Name = "lock-wait-result-ignored";
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
            // BUG: whether the wait got the lock is discarded; on a timeout the call writes without it.
            await WaitForLockAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            command.Release(context.Pool);
            throw;
        }
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
                throw ZooHelpers.Faulted(Name, ex);
            }
            command.Release(context.Pool);
        }
        finally
        {
            _lock.Release();
        }
    }

    /// <summary>Waits for the lock for at most <see cref="LockTimeout"/> of the context's clock; true if it got it.</summary>
    private async Task<bool> WaitForLockAsync(CancellationToken cancellationToken)
    {
        if (_lock.Wait(0)) return true;
        using var expiry = new CancellationTokenSource(LockTimeout, context.TimeProvider);
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, expiry.Token);
        try
        {
            await _lock.WaitAsync(linked.Token).ConfigureAwait(false);
            return true;
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            return false;
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        await _lock.DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null)).ConfigureAwait(false);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
