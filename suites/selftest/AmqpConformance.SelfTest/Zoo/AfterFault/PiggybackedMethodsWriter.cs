using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that does not make a command without content (an ack, a cancel) wait for the
/// lock while the lock's holder waits for its flush: the command joins a side list, and the holder, once its flush has
/// returned, writes the side list's commands into the output, completes their calls ("they are out, the next flush
/// carries them") and only then flushes again. While the output keeps draining nobody notices. When it stalls again
/// right after the first flush (a socket that drained one burst), or fails, those calls have reported success for bytes
/// no successful flush delivered.
/// </summary>
public sealed class PiggybackedMethodsWriter(WriterContext context) : InlineZooWriter(context, Name)
{
    private const string Name = "piggybacked-methods";
    private readonly object _sideGate = new();
    private List<(OutgoingCommand Command, TaskCompletionSource Done)> _side = [];
    private bool _flushing;

    public override async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (!command.HasContent && Stopped() is null && JoinSide(command) is { } joined)
        {
            await joined.ConfigureAwait(false);
            return;
        }
        await base.WriteAsync(command, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The lock's holder: writes and flushes its command, then the side list's, failing the side list's calls
    /// if either flush fails (the base then stops the writer and fails this call).</summary>
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        try
        {
            WriteCommand(Context.Output, command, Context.FrameMax);
            lock (_sideGate)
                _flushing = true;
            CommandFraming.ThrowIfNotDelivered(
                await Context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
            );
            var piggybacked = TakeSide();
            if (piggybacked.Count == 0)
                return;
            foreach (var (method, _) in piggybacked)
                CommandFraming.Write(Context.Output, method, default, Context.FrameMax);
            // BUG: their calls complete here; the flush that delivers their bytes comes after.
            foreach (var (method, done) in piggybacked)
            {
                method.Release(Context.Pool);
                done.TrySetResult();
            }
            CommandFraming.ThrowIfNotDelivered(
                await Context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
            );
        }
        catch (Exception ex)
        {
            foreach (var (method, done) in TakeSide())
            {
                method.Release(Context.Pool);
                done.TrySetException(ZooHelpers.Faulted(Name, ex));
            }
            throw;
        }
    }

    /// <summary>While the lock's holder waits for its flush, adds <paramref name="command"/> to the side list and
    /// returns the task its call then awaits; otherwise null (the call takes the lock as usual).</summary>
    private Task? JoinSide(OutgoingCommand command)
    {
        lock (_sideGate)
        {
            if (!_flushing)
                return null;
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
}
