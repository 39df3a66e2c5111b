using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Lifecycle;

/// <summary>
/// DELIBERATELY BROKEN: An inline writer that keeps its lock short: a call checks that the writer is running, copies
/// its body into a pooled staging buffer outside the lock (for a large body that is most of the call's CPU time), then
/// takes the lock, writes and flushes. Once it has the lock it re-checks only for a fault ("the output may have failed
/// while we waited"), not for disposal: disposal was checked on entry. DisposeAsync marks the writer disposed and waits
/// for the lock to drain. A call that passed the entry check and is still copying when DisposeAsync runs is invisible
/// to it: DisposeAsync finds the lock free and returns, then the call takes the lock and writes and flushes into an
/// output the writer no longer owns (a publish racing connection close, bytes after connection.close). Calls parked on
/// the lock are handled (they queue ahead of DisposeAsync's wait, or see the give-up fault), so only a call in the copy
/// window shows it.
/// </summary>
public sealed class DisposeRaceBeforeLockWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "dispose-race-before-lock";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    /// <inheritdoc />
    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed)) is { } early)
        {
            command.Release(context.Pool);
            throw early;
        }
        // Stage outside the lock so the lock is held only for the write.
        var staged = StagedCommand.Copy(command, context.Pool);
        try
        {
            await _lock.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            staged.Release(context.Pool);
            throw;
        }
        try
        {
            // BUG: only the fault is re-checked here; disposal was checked on entry.
            if (Volatile.Read(ref _fault) is { } fault)
            {
                staged.Release(context.Pool);
                throw ZooHelpers.Faulted(Name, fault);
            }
            try
            {
                CommandFraming.Write(context.Output, staged.Command, staged.Body, context.FrameMax);
                CommandFraming.ThrowIfNotDelivered(
                    await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                );
            }
            catch (Exception ex)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                staged.Release(context.Pool);
                throw ZooHelpers.Faulted(Name, ex);
            }
            staged.Release(context.Pool);
        }
        finally
        {
            _lock.Release();
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        await _lock
            .DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null))
            .ConfigureAwait(false);
    }
}
