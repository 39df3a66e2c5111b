using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo;

/// <summary>
/// The delayed-flush design (Nagle-like) two zoo writers share: a call takes a lock, refuses once the writer has
/// stopped, writes its command into the output, releases it (its bytes are in the output), adds a completion to the
/// pending list and, if no flush is scheduled, arms a one-shot timer of <see cref="FlushDelay"/> on
/// <see cref="WriterContext.TimeProvider"/>; it completes when the flush that carried its bytes returned. The timer's
/// callback takes the lock, takes the pending list, flushes once for all of them and signals them (or fails them and
/// stops the writer if the flush failed). Disposal stops the timer and flushes what is pending within the drain
/// timeout, then gives up (cancelling the pending flush). Whether the writer is right depends only on when it clears
/// its "flush scheduled" flag (<see cref="ClearScheduledLate"/>).
/// </summary>
public abstract class DelayedFlushZooWriter : IFrameWriter
{
    /// <summary>How long a written command waits for the flush that carries it.</summary>
    public static readonly TimeSpan FlushDelay = TimeSpan.FromMilliseconds(1);

    private readonly SemaphoreSlim _lock = new(1, 1);
    private List<TaskCompletionSource> _pending = [];
    private readonly ITimer _timer;
    private readonly string _name;
    private Exception? _fault;
    private int _disposed;
    private int _scheduled;
    private bool _closed;

    /// <summary>Creates the writer and its (disarmed) flush timer.</summary>
    /// <param name="context">The writer's context.</param>
    /// <param name="name">The writer's name in its exceptions.</param>
    /// <param name="timers">The clock the flush timer runs on; null for
    /// <see cref="WriterContext.TimeProvider"/>.</param>
    protected DelayedFlushZooWriter(WriterContext context, string name, TimeProvider? timers = null)
    {
        ArgumentNullException.ThrowIfNull(context);
        Context = context;
        _name = name;
        _timer = (timers ?? context.TimeProvider).CreateTimer(
            static s => _ = ((DelayedFlushZooWriter)s!).FlushPendingAsync(),
            this,
            Timeout.InfiniteTimeSpan,
            Timeout.InfiniteTimeSpan
        );
    }

    /// <summary>The writer's context.</summary>
    protected WriterContext Context { get; }

    /// <summary>False: the timer clears the flag under the lock, before it flushes (right). True: after it released the
    /// lock and signalled its batch, so a call that wrote in between saw a flush scheduled and armed nothing.</summary>
    protected abstract bool ClearScheduledLate { get; }

    /// <inheritdoc />
    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(Context.Pool);
            throw early;
        }
        await _lock.EnterOrReleaseAsync(command, Context.Pool, cancellationToken).ConfigureAwait(false);
        TaskCompletionSource done;
        try
        {
            if (Stopped() is { } stopped)
            {
                command.Release(Context.Pool);
                throw stopped;
            }
            try
            {
                CommandFraming.Write(Context.Output, command, command.Body.Span, Context.FrameMax);
            }
            catch (Exception ex)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                command.Release(Context.Pool);
                throw ZooHelpers.Faulted(_name, ex);
            }
            command.Release(Context.Pool);
            done = new TaskCompletionSource();
            _pending.Add(done);
            if (Interlocked.Exchange(ref _scheduled, 1) == 0)
                Arm();
        }
        finally
        {
            _lock.Release();
        }
        await done.Task.ConfigureAwait(false);
    }

    private void Arm()
    {
        try
        {
            _timer.Change(FlushDelay, Timeout.InfiniteTimeSpan);
        }
        catch (ObjectDisposedException)
        {
            // Disposal stopped the timer; its final flush (under the lock, after this call) carries the pending bytes.
        }
    }

    private async Task FlushPendingAsync()
    {
        await Task.Yield(); // off the timer's callback at once
        await _lock.WaitAsync().ConfigureAwait(false);
        List<TaskCompletionSource> batch;
        try
        {
            if (_closed)
                return;
            batch = _pending;
            _pending = [];
            if (!ClearScheduledLate)
                Volatile.Write(ref _scheduled, 0);
            if (batch.Count == 0)
                return;
            if (Volatile.Read(ref _fault) is { } fault)
            {
                foreach (var waiting in batch)
                    waiting.TrySetException(ZooHelpers.Faulted(_name, fault));
                return;
            }
            try
            {
                CommandFraming.ThrowIfNotDelivered(
                    await Context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                );
            }
            catch (Exception ex)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                foreach (var waiting in batch)
                    waiting.TrySetException(ZooHelpers.Faulted(_name, ex));
                return;
            }
        }
        finally
        {
            _lock.Release();
        }
        foreach (var waiting in batch)
            waiting.TrySetResult();
        // BUG (when ClearScheduledLate): a call that wrote since the lock was released saw the flag still set and armed
        // nothing.
        if (ClearScheduledLate)
            Volatile.Write(ref _scheduled, 0);
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        await _timer.DisposeAsync().ConfigureAwait(false);
        // The final flush: whatever was written and not yet flushed (its timer stopped), bounded like any drain.
        var final = FinalFlushAsync();
        if (!await WaitForFinalFlushAsync(final).ConfigureAwait(false))
        {
            Interlocked.CompareExchange(
                ref _fault,
                new TimeoutException("DisposeAsync gave up on the pending flush."),
                null
            );
            Context.Output.CancelPendingFlush();
            await final.EndsWithinAsync(Context, gaveUp: true).ConfigureAwait(false);
        }
    }

    /// <summary>Waits for disposal's final flush; true if it ended, false to give up on it. By default within
    /// <see cref="WriterContext.DrainTimeout"/> on <see cref="WriterContext.TimeProvider"/>
    /// (<see cref="ZooHelpers.EndsWithinAsync"/>).</summary>
    protected virtual Task<bool> WaitForFinalFlushAsync(Task final) => final.EndsWithinAsync(Context, gaveUp: false);

    private async Task FinalFlushAsync()
    {
        await FlushPendingAsync().ConfigureAwait(false);
        await _lock.WaitAsync().ConfigureAwait(false);
        _closed = true;
        foreach (var waiting in _pending)
            waiting.TrySetException(ZooHelpers.Disposed(_name));
        _pending.Clear();
        _lock.Release();
    }

    private Exception? Stopped() => ZooHelpers.Stopped(_name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
