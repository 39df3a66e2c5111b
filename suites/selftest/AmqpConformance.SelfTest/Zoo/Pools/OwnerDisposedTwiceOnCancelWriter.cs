using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer whose handler for a cancelled wait on its lock releases the command and then,
/// "to be sure the caller's buffer goes back", disposes the body owner itself, not knowing that
/// <see cref="OutgoingCommand.Release"/> already did: the owner is disposed twice (with a real pool, the caller's
/// buffer is returned twice and later handed to two renters). Calls without an owner, and calls that are not cancelled
/// while waiting for the lock, are correct.
/// </summary>
public sealed class OwnerDisposedTwiceOnCancelWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "owner-disposed-twice-on-cancel";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(context.Pool);
            throw early;
        }
        if (cancellationToken.IsCancellationRequested)
        {
            command.Release(context.Pool);
            throw new OperationCanceledException(cancellationToken);
        }
        try
        {
            await _lock.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            command.Release(context.Pool);
            // BUG: Release has already disposed the owner; this disposes it again.
            command.BodyOwner?.Dispose();
            throw;
        }
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
            _lock.Release();
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

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
