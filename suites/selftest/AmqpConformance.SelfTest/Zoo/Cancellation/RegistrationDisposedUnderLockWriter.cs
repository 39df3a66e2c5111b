using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Cancellation;

/// <summary>
/// DELIBERATELY BROKEN: a batching writer (complete after the flush that carried the command). A caller queues its
/// command under the writer's lock and registers its token, whose callback takes the same lock to withdraw the command
/// while it is still queued. The loop takes a batch under the lock and, while still holding it, disposes each taken
/// call's registration ("from here on the token no longer matters"). But disposing a registration waits for its
/// callback if that is running: when a token is cancelled just as the loop takes its command, the callback waits for
/// the lock and the loop, holding the lock, waits for the callback. The loop, the thread that cancelled, and every
/// later call (which needs the lock) hang for good.
/// </summary>
public sealed class RegistrationDisposedUnderLockWriter : IFrameWriter
{
    private const string Name = "registration-disposed-under-lock";
    private readonly WriterContext _context;
    private readonly object _gate = new();
    private readonly Queue<Entry> _queue = new();
    private readonly SemaphoreSlim _wake = new(0);
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public RegistrationDisposedUnderLockWriter(WriterContext context)
    {
        _context = context;
        _loop = Task.Run(LoopAsync);
    }

    /// <summary>A queued call: its command, its completion, its token's registration; <see cref="Taken"/> and
    /// <see cref="Withdrawn"/> change only under the writer's lock.</summary>
    private sealed class Entry(OutgoingCommand command)
    {
        public OutgoingCommand Command { get; } = command;
        public TaskCompletionSource Done { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
        public CancellationTokenRegistration Registration { get; set; }
        public bool Taken { get; set; }
        public bool Withdrawn { get; set; }
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));

    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (ZooHelpers.RefuseOnEntry(Stopped(), command, _context.Pool, cancellationToken) is { } refused)
            return refused;
        var entry = new Entry(command);
        lock (_gate)
        {
            if (Stopped() is { } stopped)
            {
                command.Release(_context.Pool);
                return ValueTask.FromException(stopped);
            }
            _queue.Enqueue(entry);
        }
        entry.Registration = cancellationToken.UnsafeRegister(
            static (state, token) =>
            {
                var (writer, queued) = ((RegistrationDisposedUnderLockWriter, Entry))state!;
                writer.Withdraw(queued, token);
            },
            (this, entry)
        );
        _wake.Release();
        return new ValueTask(entry.Done.Task);
    }

    private void Withdraw(Entry entry, CancellationToken token)
    {
        lock (_gate)
        {
            if (entry.Taken)
                return; // the loop has it: it is written and completes as usual
            entry.Withdrawn = true; // left in the queue; the loop skips it
        }
        entry.Command.Release(_context.Pool);
        entry.Done.TrySetCanceled(token);
    }

    private async Task LoopAsync()
    {
        var batch = new List<Entry>();
        try
        {
            while (true)
            {
                lock (_gate)
                {
                    while (_queue.TryDequeue(out var entry))
                    {
                        if (entry.Withdrawn)
                            continue;
                        entry.Taken = true;
                        CommandFraming.Write(
                            _context.Output,
                            entry.Command,
                            entry.Command.Body.Span,
                            _context.FrameMax
                        );
                        entry.Registration.Dispose(); // BUG: waits for a running callback, which waits for this lock
                        batch.Add(entry);
                    }
                }
                if (batch.Count > 0)
                {
                    CommandFraming.ThrowIfNotDelivered(
                        await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false)
                    );
                    foreach (var entry in batch)
                    {
                        entry.Command.Release(_context.Pool);
                        entry.Done.TrySetResult();
                    }
                    batch.Clear();
                    continue;
                }
                if (Volatile.Read(ref _disposed) != 0)
                    return;
                await _wake.WaitAsync(_stop.Token).ConfigureAwait(false);
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            var failure = ZooHelpers.Faulted(Name, ex);
            lock (_gate)
            {
                while (_queue.TryDequeue(out var entry))
                    if (!entry.Withdrawn)
                        batch.Add(entry);
            }
            foreach (var entry in batch)
            {
                entry.Command.Release(_context.Pool);
                entry.Done.TrySetException(failure);
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _wake.Release();
        if (await _loop.EndsWithinAsync(_context, gaveUp: false).ConfigureAwait(false))
            return;
        await _loop
            .GiveUpOnAsync(_context, _stop, reason => Interlocked.CompareExchange(ref _fault, reason, null))
            .ConfigureAwait(false);
    }
}
