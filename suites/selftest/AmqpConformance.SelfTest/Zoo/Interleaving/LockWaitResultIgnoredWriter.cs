using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Interleaving;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer (lock, write, flush, complete after the flush) whose PR added a 30 s limit on
/// the wait for the write lock, on <see cref="WriterContext.TimeProvider"/>'s clock, "so a wedged connection cannot
/// park publishers for ever". The wait returns whether it got the lock, as
/// <see cref="SemaphoreSlim.WaitAsync(TimeSpan)"/> does, and the call site discards the bool: a call that waited more
/// than 30 s behind other calls' stalled flushes goes on without the lock, writes into the output while the holder's
/// flush is pending, and its <c>Release</c> then lets a third caller in alongside the holder (or throws
/// <see cref="SemaphoreFullException"/>). Calls that get the lock within 30 s are handled right.
/// </summary>
public sealed class LockWaitResultIgnoredWriter(WriterContext context)
    : InlineZooWriter(context, "lock-wait-result-ignored")
{
    /// <summary>How long a call waits for the write lock before it (wrongly) goes on.</summary>
    public static readonly TimeSpan LockTimeout = TimeSpan.FromSeconds(30);

    /// <inheritdoc />
    protected override async Task EnterAsync(CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested(); // a call whose token is already cancelled is refused, lock free or not
        // BUG: whether the wait got the lock is discarded; on a timeout the call writes without it.
        await WaitForLockAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Waits for the lock for at most <see cref="LockTimeout"/> of the context's clock; true if it got
    /// it.</summary>
    private async Task<bool> WaitForLockAsync(CancellationToken cancellationToken)
    {
        if (Lock.Wait(0))
            return true;
        using var expiry = new CancellationTokenSource(LockTimeout, Context.TimeProvider);
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, expiry.Token);
        try
        {
            await Lock.WaitAsync(linked.Token).ConfigureAwait(false);
            return true;
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            return false;
        }
    }
}
