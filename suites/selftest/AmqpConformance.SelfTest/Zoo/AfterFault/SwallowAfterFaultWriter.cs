using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that, once its output has failed, drops later publishes quietly ("the
/// connection is going down, recovery will republish"): it releases the command and completes the call successfully.
/// The call whose flush failed is reported correctly and no byte is written after the fault; the calls after it are
/// lost in silence.
/// </summary>
public sealed class SwallowAfterFaultWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "swallow-after-fault";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (DroppedAfterFault(command))
            return;
        if (Volatile.Read(ref _disposed) != 0)
        {
            command.Release(context.Pool);
            throw ZooHelpers.Disposed(Name);
        }
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        try
        {
            if (DroppedAfterFault(command))
                return;
            if (Volatile.Read(ref _disposed) != 0)
            {
                command.Release(context.Pool);
                throw ZooHelpers.Disposed(Name);
            }
            await ZooHelpers
                .WriteFlushReleaseAsync(context, command, Name, ex => Interlocked.CompareExchange(ref _fault, ex, null))
                .ConfigureAwait(false);
        }
        finally
        {
            _lock.Release();
        }
    }

    private bool DroppedAfterFault(OutgoingCommand command)
    {
        if (Volatile.Read(ref _fault) is null)
            return false;
        // BUG: after the fault the command is released and the call reports success, instead of failing.
        command.Release(context.Pool);
        return true;
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
