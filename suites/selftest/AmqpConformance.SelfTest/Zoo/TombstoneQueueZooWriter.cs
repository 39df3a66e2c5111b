using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo;

/// <summary>
/// The tombstone-cancellation batching design two zoo writers share: a call queues an entry (its command and a
/// completion) on an unbounded channel and awaits the entry's completion, which comes after the flush that carried its
/// command (the queue holds no copies: bodies stay in the callers' memory until their calls complete). A queued call
/// whose token fires claims its entry back (a compare-and-swap against the loop's claim), releases its command and is
/// cancelled; the loop skips such a tombstone. The loop writes the entries it claims and flushes once nothing more is
/// queued or 32 are written, then releases and signals them. A failed flush stops the writer and fails what it holds
/// and what is queued. Disposal lets the loop drain within the drain timeout, then gives up: records the reason,
/// cancels the loop and its pending flush (the loop fails what it wrote) and abandons what is still queued
/// (<see cref="Abandon"/>). A subclass overrides one step, and what it overrides is its bug: whether the loop decides
/// to flush only right after a write (<see cref="FlushDecidedAfterWriteOnly"/>) or how an abandoned entry ends
/// (<see cref="Abandon"/>).
/// </summary>
public abstract class TombstoneQueueZooWriter : IFrameWriter
{
    private const int Batch = 32;
    private readonly string _name;

    // Not SingleReader: the loop reads Count, which the single-reader unbounded channel does not support.
    private readonly Channel<Entry> _queue = Channel.CreateUnbounded<Entry>(
        new UnboundedChannelOptions
        {
            SingleReader = false,
            SingleWriter = false,
            AllowSynchronousContinuations = false,
        }
    );
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    /// <summary>Starts the writer's loop.</summary>
    protected TombstoneQueueZooWriter(WriterContext context, string name)
    {
        ArgumentNullException.ThrowIfNull(context);
        Context = context;
        _name = name;
        _loop = Task.Run(LoopAsync);
    }

    /// <summary>The writer's context.</summary>
    protected WriterContext Context { get; }

    /// <summary>False (right): once the queue is empty the loop flushes whatever it wrote, whether the last entry it
    /// took was written or a tombstone it skipped. True: the loop decides to flush only right after writing an entry,
    /// so a tombstone at the end of the queue leaves what it wrote before unflushed.</summary>
    protected virtual bool FlushDecidedAfterWriteOnly => false;

    /// <summary>Ends a queued entry disposal gave up on: its command was never written. By default releases the command
    /// and fails the call with <paramref name="reason"/>.</summary>
    protected virtual void Abandon(Entry entry, Exception reason)
    {
        ArgumentNullException.ThrowIfNull(entry);
        entry.Command.Release(Context.Pool);
        entry.Done.TrySetException(reason);
    }

    /// <inheritdoc />
    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (ZooHelpers.RefuseOnEntry(Stopped(), command, Context.Pool, cancellationToken) is { } refused)
            return refused;
        var entry = new Entry(command, Context.Pool);
        if (cancellationToken.CanBeCanceled)
            entry.Registration = cancellationToken.Register(static (s, token) => ((Entry)s!).Withdraw(token), entry);
        if (!_queue.Writer.TryWrite(entry))
        {
            if (entry.TryClaim(Entry.Taken))
            {
                entry.Registration.Dispose();
                command.Release(Context.Pool);
                return ValueTask.FromException(Stopped() ?? ZooHelpers.Disposed(_name));
            }
        }
        return new ValueTask(entry.Done.Task);
    }

    private async Task LoopAsync()
    {
        var reader = _queue.Reader;
        var written = new List<Entry>(Batch);
        try
        {
            while (await reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                while (reader.TryRead(out var entry))
                {
                    if (!entry.TryClaim(Entry.Taken))
                    {
                        if (FlushDecidedAfterWriteOnly)
                            continue; // BUG (when true): skips the flush decision below
                        if (reader.Count > 0 || written.Count == 0)
                            continue;
                        await FlushAsync(written).ConfigureAwait(false);
                        continue;
                    }
                    await entry.Registration.DisposeAsync().ConfigureAwait(false);
                    written.Add(entry);
                    CommandFraming.Write(Context.Output, entry.Command, entry.Command.Body.Span, Context.FrameMax);
                    if (reader.Count > 0 && written.Count < Batch)
                        continue; // more coming: one flush for them all
                    await FlushAsync(written).ConfigureAwait(false);
                }
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            _queue.Writer.TryComplete();
            var reason = ZooHelpers.Faulted(_name, ex);
            foreach (var held in written)
                Fail(held, reason);
            written.Clear();
            if (_stop.IsCancellationRequested)
                return; // disposal gave up: it ends what is still queued (Abandon)
            while (reader.TryRead(out var queued))
                if (queued.TryClaim(Entry.Taken))
                    Fail(queued, reason);
        }
    }

    private async Task FlushAsync(List<Entry> written)
    {
        CommandFraming.ThrowIfNotDelivered(await Context.Output.FlushAsync(_stop.Token).ConfigureAwait(false));
        foreach (var done in written)
        {
            done.Command.Release(Context.Pool);
            done.Done.TrySetResult();
        }
        written.Clear();
    }

    private void Fail(Entry entry, Exception reason)
    {
        entry.Registration.Dispose();
        entry.Command.Release(Context.Pool);
        entry.Done.TrySetException(reason);
    }

    /// <summary>Lets the loop drain within the drain timeout, then gives up on what is left
    /// (<see cref="Abandon"/>).</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _queue.Writer.TryComplete();
        if (await _loop.EndsWithinAsync(Context, gaveUp: false).ConfigureAwait(false))
            return;
        await _loop
            .GiveUpOnAsync(Context, _stop, reason => Interlocked.CompareExchange(ref _fault, reason, null))
            .ConfigureAwait(false);
        var reason = ZooHelpers.Disposed(_name);
        while (_queue.Reader.TryRead(out var queued))
            if (queued.TryClaim(Entry.Taken))
            {
                queued.Registration.Dispose();
                Abandon(queued, reason);
            }
    }

    private Exception? Stopped() => ZooHelpers.Stopped(_name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));

    /// <summary>A queued call: its command, its completion, and who owns it (queued, taken by the loop, or
    /// withdrawn).</summary>
    protected sealed class Entry(OutgoingCommand command, ArrayPool<byte> pool)
    {
        internal const int Taken = 1;
        private const int Withdrawn = 2;
        private int _state;

        /// <summary>The command.</summary>
        public OutgoingCommand Command { get; } = command;

        /// <summary>What the caller awaits.</summary>
        public TaskCompletionSource Done { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        internal CancellationTokenRegistration Registration { get; set; }

        internal bool TryClaim(int claim) => Interlocked.CompareExchange(ref _state, claim, 0) == 0;

        internal void Withdraw(CancellationToken token)
        {
            if (!TryClaim(Withdrawn))
                return;
            Command.Release(pool);
            Done.TrySetCanceled(token);
        }
    }
}
