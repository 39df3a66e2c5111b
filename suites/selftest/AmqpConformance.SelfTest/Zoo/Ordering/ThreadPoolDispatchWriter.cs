using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Ordering;

/// <summary>
/// DELIBERATELY BROKEN: copies the body (so memory is safe) and hands each command to the thread pool
/// (<see cref="Task.Run(Func{Task})"/>), completing the caller at once; whichever pool thread gets the lock first
/// writes first, so a burst of publishes from one caller can reach the wire out of call order. Each command is
/// still written whole; one publish at a time looks correct.
/// </summary>
public sealed class ThreadPoolDispatchWriter(WriterContext context) : IFrameWriter
{
    private readonly SemaphoreSlim _lock = new(1, 1);
    private readonly object _gate = new();
    private readonly List<Task> _inFlight = [];

    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            command.Release(context.Pool);
            return ValueTask.FromCanceled(cancellationToken);
        }
        int length = command.Body.Length;
        byte[] copy = context.Pool.Rent(length);
        command.Body.Span.CopyTo(copy);
        // BUG: the thread pool decides the order.
        var task = Task.Run(async () =>
        {
            await _lock.WaitAsync().ConfigureAwait(false);
            try
            {
                CommandFraming.Write(context.Output, command, copy.AsSpan(0, length), context.FrameMax);
                await context.Output.FlushAsync().ConfigureAwait(false);
            }
            finally
            {
                _lock.Release();
                context.Pool.Return(copy);
                command.Release(context.Pool);
            }
        });
        lock (_gate)
        {
            _inFlight.RemoveAll(t => t.IsCompleted);
            _inFlight.Add(task);
        }
        return default;
    }

    public async ValueTask DisposeAsync()
    {
        Task[] pending;
        lock (_gate)
            pending = [.. _inFlight];
        try
        {
            await Task.WhenAll(pending).WaitAsync(TimeSpan.FromSeconds(5)).ConfigureAwait(false);
        }
        catch (Exception)
        {
            // faults were the callers' problem (they never heard of them: another bug, not the one on show)
        }
    }
}
