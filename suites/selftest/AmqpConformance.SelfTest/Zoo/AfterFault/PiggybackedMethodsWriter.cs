using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that does not make a command without content (an ack, a cancel) wait for the lock while
/// the lock's holder waits for its flush: the command joins a side list, and the holder, once its flush has returned, writes the
/// side list's commands into the output, completes their calls ("they are out, the next flush carries them") and only then
/// flushes again. While the output keeps draining nobody notices. When it stalls again right after the first flush (a socket
/// that drained one burst), or fails, those calls have reported success for bytes no successful flush delivered.
/// </summary>
public sealed class PiggybackedMethodsWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "piggybacked-methods";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private readonly object _sideGate = new();
    private List<(OutgoingCommand Command, TaskCompletionSource Done)> _side = [];
    private bool _flushing;
    private Exception? _fault;
    private int _disposed;

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(context.Pool);
            throw early;
        }
        if (!command.HasContent && JoinSide(command) is { } joined)
        {
            await joined.ConfigureAwait(false);
            return;
        }
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
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
                lock (_sideGate) _flushing = true;
                CommandFraming.ThrowIfNotDelivered(await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
                var piggybacked = TakeSide();
                if (piggybacked.Count > 0)
                {
                    foreach (var (method, _) in piggybacked) CommandFraming.Write(context.Output, method, default, context.FrameMax);
                    // BUG: their calls complete here; the flush that delivers their bytes comes after.
                    foreach (var (method, done) in piggybacked)
                    {
                        method.Release(context.Pool);
                        done.TrySetResult();
                    }
                    CommandFraming.ThrowIfNotDelivered(await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
                }
            }
            catch (Exception ex)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                command.Release(context.Pool);
                foreach (var (method, done) in TakeSide())
                {
                    method.Release(context.Pool);
                    done.TrySetException(ZooHelpers.Faulted(Name, ex));
                }
                throw ZooHelpers.Faulted(Name, ex);
            }
            command.Release(context.Pool);
        }
        finally
        {
            _lock.Release();
        }
    }

    /// <summary>While the lock's holder waits for its flush, adds <paramref name="command"/> to the side list and returns the task
    /// its call then awaits; otherwise null (the call takes the lock as usual).</summary>
    private Task? JoinSide(OutgoingCommand command)
    {
        lock (_sideGate)
        {
            if (!_flushing) return null;
            var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _side.Add((command, done));
            return done.Task;
        }
    }

    /// <summary>Ends the holder's flush: takes the side list (no command joins it after this).</summary>
    private List<(OutgoingCommand Command, TaskCompletionSource Done)> TakeSide()
    {
        lock (_sideGate)
        {
            _flushing = false;
            var taken = _side;
            _side = [];
            return taken;
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        await _lock.DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null)).ConfigureAwait(false);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
