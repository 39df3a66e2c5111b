using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: a queued writer (one loop, one flush per batch of up to 32, calls complete after their flush,
/// callers wait for room beyond QueueCapacity) that cancels a queued call by tombstoning it: the cancelling caller
/// releases its command, marks the entry cancelled and leaves it in the queue, and the loop drops tombstones as it
/// takes the next batch. The loop's failure path (a flush that threw or reported the reader gone, or disposal giving up
/// on a stalled output) releases and fails everything still queued and forgets to skip the tombstones: a command
/// released by its cancelled caller is released a second time (its frames returned twice, its body owner disposed
/// twice). It takes a cancellation of a queued call followed by a fault (or a give-up) before the loop got past the
/// tombstone.
/// </summary>
public sealed class TombstoneReleasedOnFaultWriter : IFrameWriter
{
    private const int Batch = 32;
    private const string Name = "tombstone-released-on-fault";
    private readonly WriterContext _context;
    private readonly object _sync = new();
    private readonly Queue<Entry> _queue = new();
    private readonly SemaphoreSlim _room;
    private readonly SemaphoreSlim _work = new(0);
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;
    private bool _draining;

    /// <summary>Starts the loop.</summary>
    public TombstoneReleasedOnFaultWriter(WriterContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        _context = context;
        _room = new SemaphoreSlim(context.QueueCapacity, context.QueueCapacity);
        _loop = Task.Run(LoopAsync);
    }

    private sealed class Entry(OutgoingCommand command)
    {
        public OutgoingCommand Command { get; } = command;
        public TaskCompletionSource Done { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
        public bool Taken; // by the loop, under _sync
        public bool Cancelled; // tombstone, under _sync
        public CancellationTokenRegistration Registration;
    }

    /// <inheritdoc />
    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (ZooHelpers.RefuseOnEntry(Stopped(), command, _context.Pool, cancellationToken) is { } refused)
        {
            await refused.ConfigureAwait(false);
            return;
        }
        await _room.EnterOrReleaseAsync(command, _context.Pool, cancellationToken).ConfigureAwait(false);
        var entry = new Entry(command);
        lock (_sync)
        {
            if (Stopped() is { } stopped)
            {
                _room.Release();
                command.Release(_context.Pool);
                throw stopped;
            }
            _queue.Enqueue(entry);
        }
        _work.Release();
        if (cancellationToken.CanBeCanceled)
            entry.Registration = cancellationToken.Register(
                static (s, token) =>
                    ((TombstoneReleasedOnFaultWriter)((object[])s!)[0]).Cancel((Entry)((object[])s!)[1], token),
                new object[] { this, entry }
            );
        try
        {
            await entry.Done.Task.ConfigureAwait(false);
        }
        finally
        {
            entry.Registration.Dispose();
        }
    }

    private void Cancel(Entry entry, CancellationToken token)
    {
        lock (_sync)
        {
            if (entry.Taken || entry.Cancelled)
                return;
            entry.Cancelled = true; // the loop drops it when it reaches it
        }
        entry.Command.Release(_context.Pool);
        entry.Done.TrySetCanceled(token);
    }

    private async Task LoopAsync()
    {
        var batch = new List<Entry>(Batch);
        try
        {
            while (true)
            {
                await _work.WaitAsync(_stop.Token).ConfigureAwait(false);
                lock (_sync)
                {
                    while (batch.Count < Batch && _queue.TryDequeue(out var next))
                    {
                        _room.Release();
                        if (next.Cancelled)
                            continue; // a tombstone: its caller released it
                        next.Taken = true;
                        batch.Add(next);
                    }
                    if (batch.Count == 0 && _draining && _queue.Count == 0)
                        return;
                }
                if (batch.Count == 0)
                    continue;
                foreach (var e in batch)
                    CommandFraming.Write(_context.Output, e.Command, e.Command.Body.Span, _context.FrameMax);
                CommandFraming.ThrowIfNotDelivered(await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false));
                foreach (var e in batch)
                {
                    e.Command.Release(_context.Pool);
                    e.Done.TrySetResult();
                }
                batch.Clear();
                lock (_sync)
                {
                    if (_draining && _queue.Count == 0)
                        return;
                }
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            var reason = ZooHelpers.Faulted(Name, ex);
            foreach (var e in batch)
            {
                e.Command.Release(_context.Pool);
                e.Done.TrySetException(reason);
            }
            FailQueued(reason);
        }
    }

    /// <summary>Releases and fails every queued entry.</summary>
    private void FailQueued(Exception reason)
    {
        List<Entry> left;
        lock (_sync)
        {
            left = [.. _queue];
            _queue.Clear();
            foreach (var e in left)
                e.Taken = true;
        }
        if (left.Count > 0)
            _room.Release(left.Count); // callers waiting for room get in, see the stop and are refused
        foreach (var e in left)
        {
            // BUG: a tombstone (e.Cancelled) was released by its cancelled caller already; it is released again here.
            e.Command.Release(_context.Pool);
            e.Done.TrySetException(reason);
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        lock (_sync)
            _draining = true;
        _work.Release();
        if (!await _loop.EndsWithinAsync(_context, gaveUp: false).ConfigureAwait(false))
        {
            await _loop
                .GiveUpOnAsync(_context, _stop, reason => Interlocked.CompareExchange(ref _fault, reason, null))
                .ConfigureAwait(false);
        }
        FailQueued(ZooHelpers.Disposed(Name));
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
