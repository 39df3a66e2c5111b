using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Cancellation;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer (lock, write, flush, complete after the flush) that replaces
/// <see cref="SemaphoreSlim"/>, which does not promise FIFO, with a hand-written FIFO async lock so that publishers are
/// served in call order. A waiter whose token fires is cancelled (its call releases its command and ends in
/// <see cref="OperationCanceledException"/>) but stays in the lock's queue; when the holder exits, it hands the lock to
/// the head of the queue with <c>TrySetResult</c> and ignores that the hand-off failed, so after a cancelled waiter
/// reaches the head the lock is held by nobody and never freed: every later call, and disposal's drain, waits in vain.
/// Waits that are never cancelled are handled right.
/// </summary>
public sealed class FifoLockCancelledWaiterWriter(WriterContext context)
    : InlineZooWriter(context, "fifo-lock-cancelled-waiter")
{
    private readonly object _sync = new();
    private readonly Queue<TaskCompletionSource> _waiters = new();
    private bool _held;

    /// <summary>Takes the lock at once if it is free, else queues behind the earlier waiters.</summary>
    protected override async Task EnterAsync(CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested(); // a call whose token is already cancelled is refused, lock free or not
        TaskCompletionSource waiter;
        lock (_sync)
        {
            if (!_held)
            {
                _held = true;
                return;
            }
            waiter = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiters.Enqueue(waiter);
        }
        // BUG: a cancelled waiter stays queued; Exit may hand it the lock after it gave up.
        using var registration = cancellationToken.Register(
            static (s, token) => ((TaskCompletionSource)s!).TrySetCanceled(token),
            waiter
        );
        await waiter.Task.ConfigureAwait(false);
    }

    /// <summary>Hands the lock to the oldest waiter, or frees it.</summary>
    protected override void Exit()
    {
        lock (_sync)
        {
            // BUG: when the head waiter was cancelled, TrySetResult returns false and the lock is left held by nobody.
            if (_waiters.TryDequeue(out var next))
                next.TrySetResult();
            else
                _held = false;
        }
    }

    /// <summary>Waits for the call in progress through this lock (the base drains its semaphore, which this writer does
    /// not use): within the drain timeout, then, having given up and cancelled the pending flush, within the give-up
    /// wait.</summary>
    public override async ValueTask DisposeAsync()
    {
        if (!MarkDisposed())
            return;
        if (await EnterWithinAsync(Context.DrainTimeout, Context.TimeProvider).ConfigureAwait(false))
        {
            Exit();
            return;
        }
        RecordFault(new TimeoutException("DisposeAsync gave up on the call in progress."));
        Context.Output.CancelPendingFlush();
        if (await EnterWithinAsync(Context.GiveUpWait, TimeProvider.System).ConfigureAwait(false))
            Exit();
    }

    private async Task<bool> EnterWithinAsync(TimeSpan timeout, TimeProvider time)
    {
        using var expiry = new CancellationTokenSource(timeout, time);
        try
        {
            await EnterAsync(expiry.Token).ConfigureAwait(false);
            return true;
        }
        catch (OperationCanceledException)
        {
            return false;
        }
    }
}
