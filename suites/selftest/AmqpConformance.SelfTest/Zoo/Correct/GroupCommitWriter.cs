using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (unusual): a group-commit writer. A call takes the lock (cancellably) to write its command and number it,
/// releases the command (its bytes are in the output) and lets go of the lock; then it takes the lock a second time,
/// not cancellably (its bytes are committed), and flushes everything written so far unless an earlier caller's flush
/// already carried its command, in which case it completes without flushing. So callers that write while another is
/// between its passes share one flush. A failed flush stops the writer and fails every call whose command it did not
/// deliver. Disposal waits for the lock within the drain timeout and flushes what is written and unflushed within the
/// drain timeout again, cancelling that flush when it stalls; it gives up (cancelling the pending flush) when the lock
/// does not come.
/// </summary>
public sealed class GroupCommitWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "group-commit";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private long _written;
    private long _flushed;
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
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        long mine;
        try
        {
            if (Stopped() is { } stopped)
            {
                command.Release(context.Pool);
                throw stopped;
            }
            ZooHelpers.WriteOrStop(context, command, Name, ex => Interlocked.CompareExchange(ref _fault, ex, null));
            command.Release(context.Pool);
            mine = ++_written;
        }
        finally
        {
            _lock.Release();
        }
        await _lock.WaitAsync(CancellationToken.None).ConfigureAwait(false);
        try
        {
            if (_flushed >= mine)
                return; // an earlier caller's flush carried this command
            // Only a fault stops the flush of a command already written: a disposal that has not reached the lock yet
            // flushes it anyway, and one that has flushed everything written (the check above) or gave up (a fault).
            if (Volatile.Read(ref _fault) is { } cause)
                throw ZooHelpers.Faulted(Name, cause);
            await FlushWrittenAsync(null).ConfigureAwait(false);
        }
        finally
        {
            _lock.Release();
        }
    }

    /// <summary>Flushes everything written so far; called under the lock. With <paramref name="limit"/>, a flush that
    /// does not end within it is cancelled (disposal's give-up).</summary>
    private async Task FlushWrittenAsync(TimeSpan? limit)
    {
        long upTo = _written;
        try
        {
            var flush = context.Output.FlushAsync(CancellationToken.None);
            FlushResult result;
            if (limit is not { } timeout || flush.IsCompleted)
                result = await flush.ConfigureAwait(false);
            else
            {
                var pending = flush.AsTask();
                try
                {
                    result = await pending.WaitAsync(timeout, context.TimeProvider).ConfigureAwait(false);
                }
                catch (TimeoutException gaveUp)
                {
                    Interlocked.CompareExchange(ref _fault, gaveUp, null);
                    context.Output.CancelPendingFlush();
                    result = await pending.ConfigureAwait(false);
                }
            }
            CommandFraming.ThrowIfNotDelivered(result);
            _flushed = upTo;
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            throw ZooHelpers.Faulted(Name, ex);
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        if (await _lock.WaitAsync(context.DrainTimeout, context.TimeProvider).ConfigureAwait(false))
        {
            try
            {
                if (_flushed < _written && Volatile.Read(ref _fault) is null)
                    await FlushWrittenAsync(context.DrainTimeout).ConfigureAwait(false);
            }
            catch (FrameWriterFaultedException)
            {
                // The callers whose commands it carried hear of it.
            }
            finally
            {
                _lock.Release();
            }
            return;
        }
        Interlocked.CompareExchange(
            ref _fault,
            new TimeoutException("DisposeAsync gave up on the call in progress."),
            null
        );
        context.Output.CancelPendingFlush();
        if (await _lock.WaitAsync(context.GiveUpWait).ConfigureAwait(false))
            _lock.Release();
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
