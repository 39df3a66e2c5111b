using System.Diagnostics;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Lifecycle;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer with its own fair (FIFO) async gate, a queue of waiters each completed in turn
/// by the caller leaving the gate. DisposeAsync takes the queued waiters out of the queue, "so the gate is not handed
/// to anyone after disposal", but never fails them: callers parked on the gate when disposal starts (with tokens that
/// never fire) wait forever instead of getting <see cref="ObjectDisposedException"/>. Disposal of an idle writer, and
/// every call made before it, are correct.
/// </summary>
public sealed class StrandedWaitersWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "stranded-waiters";
    private readonly object _gate = new();
    private readonly Queue<TaskCompletionSource> _waiters = new();
    private bool _held;
    private Exception? _fault;
    private int _disposed;

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(context.Pool);
            throw early;
        }
        await EnterAsync(command, cancellationToken).ConfigureAwait(false);
        try
        {
            if (Stopped() is { } stopped)
            {
                command.Release(context.Pool);
                throw stopped;
            }
            await ZooHelpers
                .WriteFlushReleaseAsync(context, command, Name, ex => Interlocked.CompareExchange(ref _fault, ex, null))
                .ConfigureAwait(false);
        }
        finally
        {
            Exit();
        }
    }

    /// <summary>Takes the gate, or queues for it; a cancelled waiter stays queued (completed) and is skipped by
    /// <see cref="Exit"/>.</summary>
    private async ValueTask EnterAsync(OutgoingCommand command, CancellationToken cancellationToken)
    {
        TaskCompletionSource waiter;
        lock (_gate)
        {
            if (!_held)
            {
                _held = true;
                return;
            }
            waiter = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiters.Enqueue(waiter);
        }
        try
        {
            using (cancellationToken.Register(static s => ((TaskCompletionSource)s!).TrySetCanceled(), waiter))
                await waiter.Task.ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            command.Release(context.Pool);
            throw;
        }
    }

    /// <summary>Hands the gate to the first waiter still waiting, or frees it.</summary>
    private void Exit()
    {
        lock (_gate)
        {
            while (_waiters.TryDequeue(out var next))
                if (next.TrySetResult())
                    return;
            _held = false;
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        lock (_gate)
        {
            // BUG: the waiters are dropped rather than failed (TrySetException with ObjectDisposedException): their
            // calls never complete.
            _waiters.Clear();
        }
        if (await GateFreedAsync().ConfigureAwait(false))
            return;
        Interlocked.CompareExchange(
            ref _fault,
            new TimeoutException("DisposeAsync gave up on the call in progress."),
            null
        );
        context.Output.CancelPendingFlush();
        await GateFreedAsync().ConfigureAwait(false);
    }

    private async Task<bool> GateFreedAsync()
    {
        var waited = Stopwatch.StartNew();
        while (waited.Elapsed < context.DrainTimeout)
        {
            lock (_gate)
            {
                if (!_held)
                    return true;
            }
            await Task.Delay(1).ConfigureAwait(false);
        }
        return false;
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
