using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo;

/// <summary>
/// The inline design that many zoo writers share and get right: a call takes a lock (releasing its command if that wait
/// is cancelled or fails), refuses with a clear exception once the writer has stopped, writes its command, flushes it,
/// releases it; a failed write or flush stops the writer for later calls; disposal waits for the call in progress
/// within the drain timeout, then gives up (<see cref="ZooHelpers.DrainAsync"/>). A subclass overrides one step, and
/// what it overrides is its bug (or, for a correct writer, its unusual way): how a command is encoded
/// (<see cref="WriteCommand"/>), how it is written and flushed (<see cref="WriteAndFlushAsync"/>), what happens once it
/// went out (<see cref="Delivered"/>), how the lock is taken and let go (<see cref="EnterAsync"/>, <see cref="Exit"/>)
/// or what a fault does to it (<see cref="OnFault"/>); a writer that lets some calls bypass the lock overrides
/// <see cref="WriteAsync"/> to route them and hands the rest to this one.
/// </summary>
/// <param name="context">The writer's context.</param>
/// <param name="name">The writer's name in its exceptions.</param>
public abstract class InlineZooWriter(WriterContext context, string name) : IFrameWriter
{
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    /// <summary>The writer's context.</summary>
    protected WriterContext Context { get; } = context;

    /// <inheritdoc />
    public virtual async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(Context.Pool);
            throw early;
        }
        try
        {
            await EnterAsync(cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            command.Release(Context.Pool); // the writer owns the command from the call on
            throw;
        }
        try
        {
            if (Stopped() is { } stopped)
            {
                command.Release(Context.Pool);
                throw stopped;
            }
            try
            {
                await WriteAndFlushAsync(command).ConfigureAwait(false);
            }
            catch (Exception ex) when (!StopsOn(ex))
            {
                command.Release(Context.Pool);
                throw;
            }
            catch (Exception ex)
            {
                RecordFault(ex);
                command.Release(Context.Pool);
                OnFault(ex);
                throw ZooHelpers.Faulted(name, ex);
            }
            Delivered(command);
        }
        finally
        {
            Exit();
        }
    }

    /// <summary>Takes the write lock for a call; a wait that ends without it throws (a cancelled one
    /// <see cref="OperationCanceledException"/>), and the call then releases its command. By default the writer's
    /// semaphore (<see cref="Lock"/>).</summary>
    protected virtual Task EnterAsync(CancellationToken cancellationToken) => _lock.WaitAsync(cancellationToken);

    /// <summary>Lets go of the write lock, after the call that took it. By default releases
    /// <see cref="Lock"/>.</summary>
    protected virtual void Exit() => _lock.Release();

    /// <summary>Called once a failed write or flush stopped the writer (the fault recorded, the command released),
    /// still holding the lock, before the call throws. By default nothing.</summary>
    protected virtual void OnFault(Exception failure) { }

    /// <summary>The semaphore that is the write lock by default (<see cref="EnterAsync"/>, <see cref="Exit"/>, and
    /// disposal's drain).</summary>
    protected SemaphoreSlim Lock => _lock;

    /// <summary>Whether a failure stopped the writer (disposal giving up counts too).</summary>
    protected bool Faulted => Volatile.Read(ref _fault) is not null;

    /// <summary>Records the reason the writer stopped, unless one was recorded already.</summary>
    protected void RecordFault(Exception reason) => Interlocked.CompareExchange(ref _fault, reason, null);

    /// <summary>Writes <paramref name="command"/> into the output and flushes it, throwing if the flush did not deliver
    /// (<see cref="CommandFraming.ThrowIfNotDelivered"/>). Called under the lock. By default:
    /// <see cref="WriteCommand"/>, then one flush.</summary>
    protected virtual async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        WriteCommand(Context.Output, command, Context.FrameMax);
        CommandFraming.ThrowIfNotDelivered(
            await Context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
        );
    }

    /// <summary>Encodes <paramref name="command"/> whole into <paramref name="output"/>: its frames, then its body as
    /// frames of frame_max - 8 bytes. By default <see cref="CommandFraming.Write"/>.</summary>
    protected virtual void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax) =>
        CommandFraming.Write(output, command, command.Body.Span, frameMax);

    /// <summary>Whether <paramref name="failure"/>, thrown while writing or flushing, stops the writer (the call fails
    /// with <see cref="FrameWriterFaultedException"/>, and so do later ones); otherwise only the call fails, with it.
    /// By default every failure stops the writer: the output is the connection's, and whatever it threw, it is
    /// broken.</summary>
    protected virtual bool StopsOn(Exception failure) => true;

    /// <summary>Called once <paramref name="command"/> was written and flushed, still under the lock. By default
    /// releases it.</summary>
    protected virtual void Delivered(in OutgoingCommand command) => command.Release(Context.Pool);

    /// <summary>Stops the writer: waits for the call in progress within the drain timeout, then gives up on
    /// it.</summary>
    public virtual async ValueTask DisposeAsync()
    {
        if (!MarkDisposed())
            return;
        await _lock.DrainAsync(Context, RecordFault).ConfigureAwait(false);
        GC.SuppressFinalize(this);
    }

    /// <summary>A disposal bounded by a timer of the writer's own (the system clock, not
    /// <see cref="WriterContext.TimeProvider"/>): waits <paramref name="wait"/> for the call in progress with
    /// <c>SemaphoreSlim.WaitAsync(TimeSpan)</c>; if it is still writing, records the give-up as the writer's fault,
    /// cancels the pending flush and waits as long again. Marks the writer disposed first; does nothing if it already
    /// was.</summary>
    protected async ValueTask DisposeOnOwnTimerAsync(TimeSpan wait)
    {
        if (!MarkDisposed())
            return;
        if (await _lock.WaitAsync(wait).ConfigureAwait(false))
        {
            _lock.Release();
            return;
        }
        RecordFault(
            new TimeoutException($"DisposeAsync gave up on the write in progress after {wait.TotalSeconds:0.###} s.")
        );
        Context.Output.CancelPendingFlush();
        if (await _lock.WaitAsync(wait).ConfigureAwait(false))
            _lock.Release();
    }

    /// <summary>Marks the writer disposed, so later calls fail; false if it already was.</summary>
    protected bool MarkDisposed() => Interlocked.Exchange(ref _disposed, 1) == 0;

    /// <summary>The exception a call gets because the writer stopped (a fault or disposal), or null while it
    /// runs.</summary>
    protected Exception? Stopped() => ZooHelpers.Stopped(name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
