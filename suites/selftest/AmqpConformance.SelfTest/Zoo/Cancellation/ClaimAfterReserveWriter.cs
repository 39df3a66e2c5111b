using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Cancellation;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (a queue bounded at <see cref="WriterContext.QueueCapacity"/>, one loop, a
/// flush per command, complete after the flush) whose queued calls stay cancellable: each caller registers on its token
/// to cancel its queue entry, and the loop skips an entry cancelled by the time it takes it. The loop serializes a
/// command whole into memory it reserves from the output, and marks the entry as its own once it holds that memory
/// ("GetSpan is what throws on a dead output; until then the call may still be cancelled"); from then on the
/// registration leaves the entry alone. But the loop checks the cancelled flag, reserves, then marks: two steps where
/// one claim was needed. A cancellation that lands after the check and before the mark completes the call as cancelled,
/// and the loop writes its command all the same. Tokens that fire while the entry is queued, or once the loop holds its
/// memory (during its write or flush), are handled correctly.
/// </summary>
public sealed class ClaimAfterReserveWriter : IFrameWriter
{
    private const string Name = "claim-after-reserve";
    private readonly WriterContext _context;
    private readonly Channel<Entry> _queue;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    /// <summary>Starts the writer's loop.</summary>
    public ClaimAfterReserveWriter(WriterContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        _context = context;
        _queue = Channel.CreateBounded<Entry>(
            new BoundedChannelOptions(context.QueueCapacity) { FullMode = BoundedChannelFullMode.Wait }
        );
        _loop = Task.Run(LoopAsync);
    }

    /// <inheritdoc />
    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default) =>
        ZooHelpers.RefuseOnEntry(Stopped(), command, _context.Pool, cancellationToken)
        ?? QueueAndAwaitAsync(new Entry(command), cancellationToken);

    private async ValueTask QueueAndAwaitAsync(Entry entry, CancellationToken cancellationToken)
    {
        try
        {
            while (!_queue.Writer.TryWrite(entry))
                if (!await _queue.Writer.WaitToWriteAsync(cancellationToken).ConfigureAwait(false))
                    throw new ChannelClosedException();
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            entry.Command.Release(_context.Pool);
            throw;
        }
        catch (ChannelClosedException)
        {
            entry.Command.Release(_context.Pool);
            throw Stopped() ?? ZooHelpers.Disposed(Name);
        }
        // Queued: until the loop claims the entry, the caller's token cancels it.
        using (cancellationToken.UnsafeRegister(static e => ((Entry)e!).TryCancel(), entry))
            await entry.Done.ConfigureAwait(false);
    }

    private async Task LoopAsync()
    {
        Entry? inHand = null;
        try
        {
            while (await _queue.Reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                while (_queue.Reader.TryRead(out var entry))
                {
                    if (entry.Cancelled)
                    {
                        entry.Command.Release(_context.Pool); // its caller gave up while it was queued
                        continue;
                    }
                    inHand = entry;
                    var image = _context.Output.GetSpan(checked((int)entry.Command.WireLength(_context.FrameMax)));
                    // BUG: checked above, claimed only here; a cancellation in between has already completed the call.
                    entry.MarkOnTheWire();
                    _context.Output.Advance(ZooHelpers.WriteWholeCommand(image, entry.Command, _context.FrameMax));
                    CommandFraming.ThrowIfNotDelivered(
                        await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false)
                    );
                    inHand = null;
                    entry.Command.Release(_context.Pool);
                    entry.Succeed();
                }
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            _queue.Writer.TryComplete(); // callers waiting for room see the fault
            if (inHand is not null)
                Fail(inHand, ZooHelpers.Faulted(Name, ex));
            FailQueued(ZooHelpers.Faulted(Name, ex));
        }
    }

    private void Fail(Entry entry, Exception reason)
    {
        entry.Command.Release(_context.Pool);
        entry.Fail(reason);
    }

    private void FailQueued(Exception reason)
    {
        while (_queue.Reader.TryRead(out var entry))
            Fail(entry, reason);
    }

    /// <summary>Lets the loop drain within the drain timeout, then gives up; fails whatever is left.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _queue.Writer.TryComplete();
        if (!await _loop.EndsWithinAsync(_context, gaveUp: false).ConfigureAwait(false))
        {
            await _loop
                .GiveUpOnAsync(_context, _stop, reason => Interlocked.CompareExchange(ref _fault, reason, null))
                .ConfigureAwait(false);
        }
        FailQueued(ZooHelpers.Disposed(Name));
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));

    /// <summary>A queue entry: its command, what its caller awaits, and whether it is queued (0), on the wire (1, the
    /// loop's) or cancelled by its caller's token (2).</summary>
    private sealed class Entry(OutgoingCommand command)
    {
        private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _state;

        public OutgoingCommand Command { get; } = command;

        public Task Done => _done.Task;

        public bool Cancelled => Volatile.Read(ref _state) == 2;

        public void MarkOnTheWire() => Volatile.Write(ref _state, 1);

        public void TryCancel()
        {
            if (Interlocked.CompareExchange(ref _state, 2, 0) == 0)
                _done.TrySetCanceled();
        }

        public void Succeed() => _done.TrySetResult();

        public void Fail(Exception reason) => _done.TrySetException(reason);
    }
}
