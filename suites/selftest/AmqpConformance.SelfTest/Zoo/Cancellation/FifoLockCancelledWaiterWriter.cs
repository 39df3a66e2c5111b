using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Cancellation;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer (lock, write, flush, complete after the flush) that replaces
/// <see cref="SemaphoreSlim"/>, which does not promise FIFO, with a hand-written FIFO async lock so that publishers are served in
/// call order. A waiter whose token fires is cancelled (its call releases its command and ends in
/// <see cref="OperationCanceledException"/>) but stays in the lock's queue; when the holder exits, it hands the lock to the head
/// of the queue with <c>TrySetResult</c> and ignores that the hand-off failed, so after a cancelled waiter reaches the head the
/// lock is held by nobody and never freed: every later call, and disposal's drain, waits in vain. Waits that are never cancelled
/// are handled right.
/// </summary>
public sealed class FifoLockCancelledWaiterWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "fifo-lock-cancelled-waiter";
    private readonly object _sync = new();
    private readonly Queue<TaskCompletionSource> _waiters = new();
    private bool _held;
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
            await EnterAsync(cancellationToken).ConfigureAwait(false);
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
            Exit();
        }
    }

    /// <summary>Takes the lock at once if it is free, else queues behind the earlier waiters.</summary>
    private async Task EnterAsync(CancellationToken cancellationToken)
    {
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
        using var registration = cancellationToken.Register(static (s, token) => ((TaskCompletionSource)s!).TrySetCanceled(token), waiter);
        await waiter.Task.ConfigureAwait(false);
    }

    /// <summary>Hands the lock to the oldest waiter, or frees it.</summary>
    private void Exit()
    {
        lock (_sync)
        {
            // BUG: when the head waiter was cancelled, TrySetResult returns false and the lock is left held by nobody.
            if (_waiters.TryDequeue(out var next)) next.TrySetResult();
            else _held = false;
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        if (await EnterWithinAsync(context.DrainTimeout, context.TimeProvider).ConfigureAwait(false))
        {
            Exit();
            return;
        }
        Interlocked.CompareExchange(ref _fault, new TimeoutException("DisposeAsync gave up on the call in progress."), null);
        context.Output.CancelPendingFlush();
        if (await EnterWithinAsync(context.GiveUpWait, TimeProvider.System).ConfigureAwait(false)) Exit();
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

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
