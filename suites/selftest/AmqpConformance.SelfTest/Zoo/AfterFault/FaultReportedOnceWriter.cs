using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that "reports the fault once": the first call after the fault takes the stored
/// cause out (<see cref="Interlocked.Exchange{T}(ref T, T)"/> with null) to throw it, so the call after that finds no
/// fault and writes into the dead output again (bytes after the fault; it then fails on its own flush, and the cycle
/// repeats). One call after the fault is handled correctly; the second one is not.
/// </summary>
public sealed class FaultReportedOnceWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "fault-reported-once";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        ThrowIfStopped(command);
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        try
        {
            ThrowIfStopped(command);
            await ZooHelpers
                .WriteFlushReleaseAsync(context, command, Name, ex => Interlocked.CompareExchange(ref _fault, ex, null))
                .ConfigureAwait(false);
        }
        finally
        {
            _lock.Release();
        }
    }

    private void ThrowIfStopped(OutgoingCommand command)
    {
        // BUG: Exchange instead of Read: reporting the fault clears it, so only the next call fails.
        if (Interlocked.Exchange(ref _fault, null) is { } cause)
        {
            command.Release(context.Pool);
            throw ZooHelpers.Faulted(Name, cause);
        }
        if (Volatile.Read(ref _disposed) != 0)
        {
            command.Release(context.Pool);
            throw ZooHelpers.Disposed(Name);
        }
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
