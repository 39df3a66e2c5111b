using System.Collections.Concurrent;
using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Cancellation;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (complete after the flush that carried the command, capacity
/// <see cref="WriterContext.QueueCapacity"/>) whose queue entries come from a pool, so that a busy publisher allocates
/// nothing. A caller registers its token to cancel its entry while it is queued. When the call completes, the caller
/// returns the entry to the pool without disposing that registration ("the call is over, its token cannot matter any
/// more"). When the token is cancelled later (the request that published has ended), the registration still points at
/// the entry, which by then carries another caller's command: that call ends in OperationCanceledException though its
/// own token never fired, and its command is never written.
/// </summary>
public sealed class StaleRegistrationWriter : IFrameWriter
{
    private const string Name = "stale-registration";
    private const int Batch = 32;
    private readonly WriterContext _context;
    private readonly ConcurrentQueue<Entry> _queue = new();
    private readonly ConcurrentBag<Entry> _pool = [];
    private readonly Channel<bool> _doorbell = Channel.CreateBounded<bool>(
        new BoundedChannelOptions(1) { FullMode = BoundedChannelFullMode.DropWrite }
    );
    private readonly SemaphoreSlim _space;
    private readonly object _gate = new();
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public StaleRegistrationWriter(WriterContext context)
    {
        _context = context;
        _space = new SemaphoreSlim(context.QueueCapacity);
        _loop = Task.Run(LoopAsync);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(_context.Pool);
            throw early;
        }
        await _space.EnterOrReleaseAsync(command, _context.Pool, cancellationToken).ConfigureAwait(false);
        if (!_pool.TryTake(out var entry))
            entry = new Entry();
        Task done = entry.Start(command);
        lock (_gate)
        {
            if (Stopped() is { } stopped)
            {
                _space.Release();
                command.Release(_context.Pool);
                _pool.Add(entry);
                throw stopped;
            }
            _queue.Enqueue(entry);
        }
        entry.Registration = cancellationToken.UnsafeRegister(static e => ((Entry)e!).TryCancel(), entry);
        _doorbell.Writer.TryWrite(true);
        try
        {
            await done.ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            throw; // cancelled while queued: the loop skips the entry, releases its command and pools it
        }
        catch (Exception)
        {
            _pool.Add(entry);
            throw;
        }
        // BUG: the registration is not disposed; the entry goes back to the pool with the caller's token still pointing
        // at it.
        _pool.Add(entry);
    }

    private async Task LoopAsync()
    {
        var batch = new Entry[Batch];
        int count = 0;
        try
        {
            while (await _doorbell.Reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                _doorbell.Reader.TryRead(out _);
                while (true)
                {
                    while (count < Batch && _queue.TryDequeue(out var entry))
                    {
                        if (entry.TryTake())
                            batch[count++] = entry;
                        else
                            Skip(entry);
                    }
                    if (count == 0)
                        break;
                    for (int i = 0; i < count; i++)
                        CommandFraming.Write(
                            _context.Output,
                            batch[i].Command,
                            batch[i].Command.Body.Span,
                            _context.FrameMax
                        );
                    CommandFraming.ThrowIfNotDelivered(
                        await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false)
                    );
                    for (int i = 0; i < count; i++)
                    {
                        batch[i].Command.Release(_context.Pool);
                        batch[i].Succeed();
                    }
                    _space.Release(count);
                    count = 0;
                }
            }
        }
        catch (Exception ex)
        {
            lock (_gate)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                for (int i = 0; i < count; i++)
                {
                    batch[i].Command.Release(_context.Pool);
                    batch[i].Fail(ZooHelpers.Faulted(Name, ex));
                }
                FailQueued(ZooHelpers.Faulted(Name, ex));
            }
            _space.Release(_context.QueueCapacity); // wake callers waiting for space: they see the fault
        }
    }

    private void Skip(Entry cancelled)
    {
        cancelled.Command.Release(_context.Pool);
        _space.Release();
        _pool.Add(cancelled);
    }

    private void FailQueued(Exception reason)
    {
        while (_queue.TryDequeue(out var entry))
        {
            if (!entry.TryTake())
            {
                Skip(entry);
                continue;
            }
            entry.Command.Release(_context.Pool);
            entry.Fail(reason);
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        lock (_gate)
            _doorbell.Writer.TryComplete();
        _space.Release(_context.QueueCapacity);
        bool drained = await _loop.EndsWithinAsync(_context, gaveUp: false).ConfigureAwait(false);
        if (!drained)
        {
            await _loop
                .GiveUpOnAsync(_context, _stop, reason => Interlocked.CompareExchange(ref _fault, reason, null))
                .ConfigureAwait(false);
        }
        lock (_gate)
            FailQueued(ZooHelpers.Disposed(Name));
    }

    /// <summary>A pooled queue entry: a command, the task its caller awaits, and the caller's registration. Queued (0),
    /// taken by the loop (1) or cancelled while queued (2).</summary>
    private sealed class Entry
    {
        private TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _state;

        public OutgoingCommand Command { get; private set; }

        public CancellationTokenRegistration Registration { get; set; }

        public Task Start(OutgoingCommand command)
        {
            Command = command;
            _done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            Volatile.Write(ref _state, 0);
            return _done.Task;
        }

        public bool TryTake() => Interlocked.CompareExchange(ref _state, 1, 0) == 0;

        public void TryCancel()
        {
            if (Interlocked.CompareExchange(ref _state, 2, 0) == 0)
                _done.TrySetCanceled();
        }

        public void Succeed() => _done.TrySetResult();

        public void Fail(Exception reason) => _done.TrySetException(reason);
    }
}
