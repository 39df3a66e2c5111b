using System.Collections.Concurrent;
using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo;

/// <summary>
/// The queued design two zoo writers share and get right: a call puts a pooled <see cref="CompletionEntry"/> into a
/// bounded channel of <see cref="WriterContext.QueueCapacity"/> and returns the entry's <see cref="ValueTask"/> (a call
/// that finds the queue full waits for room in call order with an entry of its own, its command released if that wait
/// is cancelled and the loop has not claimed the entry, see <see cref="CompletionEntry.TryWithdraw"/>), which completes
/// after the flush that carried its command (the caller's continuation runs on the loop, as it signals). A loop takes
/// the queued entries in batches of up to <see cref="Batch"/> while the queue is not empty, writes them, flushes,
/// releases them and signals their callers. A failed flush stops the writer and fails what it holds; disposal lets the
/// loop drain within the drain timeout, then gives up. A subclass overrides one step, and what it overrides is its bug:
/// how a batch is taken (<see cref="TakeBatch"/>) or when an entry goes back to the pool
/// (<see cref="RecycleWhenSignalled"/>).
/// </summary>
public abstract class QueuedZooWriter : IFrameWriter
{
    /// <summary>The most commands one flush carries.</summary>
    protected const int Batch = 32;
    private readonly string _name;
    private readonly Channel<CompletionEntry> _queue;
    private readonly ConcurrentBag<CompletionEntry> _pool = [];
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    /// <summary>Starts the writer's loop.</summary>
    protected QueuedZooWriter(WriterContext context, string name)
    {
        ArgumentNullException.ThrowIfNull(context);
        Context = context;
        _name = name;
        _queue = Channel.CreateBounded<CompletionEntry>(
            new BoundedChannelOptions(context.QueueCapacity)
            {
                FullMode = BoundedChannelFullMode.Wait,
                SingleReader = true,
            }
        );
        _loop = Task.Run(LoopAsync);
    }

    /// <summary>The writer's context.</summary>
    protected WriterContext Context { get; }

    /// <summary>Whether the loop returns an entry to the pool as soon as it has signalled it, instead of its caller
    /// doing so when it takes the result. False by default.</summary>
    protected virtual bool RecycleWhenSignalled => false;

    /// <inheritdoc />
    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(Context.Pool);
            return ValueTask.FromException(early);
        }
        if (!_pool.TryTake(out var entry))
            entry = new CompletionEntry(_pool.Add, recycleOnResult: !RecycleWhenSignalled);
        entry.Start(command);
        if (_queue.Writer.TryWrite(entry))
            return entry.Task;
        // The queue is full: this call waits inside the writer, with an entry of its own (the pooled one goes back
        // unused).
        _pool.Add(entry);
        var own = new CompletionEntry(recycle: null, recycleOnResult: false);
        own.Start(command);
        return WaitForRoomAsync(own, cancellationToken);
    }

    private async ValueTask WaitForRoomAsync(CompletionEntry entry, CancellationToken cancellationToken)
    {
        try
        {
            await _queue.Writer.WriteAsync(entry, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception ex) when ((ex is OperationCanceledException or ChannelClosedException) && entry.TryWithdraw())
        {
            entry.Command.Release(Context.Pool);
            if (ex is OperationCanceledException)
                throw;
            throw Stopped() ?? ZooHelpers.Disposed(_name);
        }
        catch (OperationCanceledException)
        {
            // The wait was cancelled, yet the channel passed the entry on and the loop took it (see
            // CompletionEntry.TryWithdraw): the command is the loop's now, and the call ends as the loop ends it.
        }
        await entry.Task.ConfigureAwait(false);
    }

    /// <summary>Takes the next batch of queued entries into <paramref name="batch"/> (at most <see cref="Batch"/>);
    /// returns how many. By default: dequeues up to the cap.</summary>
    protected virtual int TakeBatch(CompletionEntry[] batch)
    {
        ArgumentNullException.ThrowIfNull(batch);
        int count = 0;
        while (count < batch.Length && _queue.Reader.TryRead(out var entry))
            batch[count++] = entry;
        return count;
    }

    /// <summary>Takes the oldest queued entry, if any (for <see cref="TakeBatch"/>).</summary>
    protected bool TryDequeue(out CompletionEntry entry) => _queue.Reader.TryRead(out entry!);

    private async Task LoopAsync()
    {
        var batch = new CompletionEntry[Batch];
        int count = 0;
        try
        {
            while (await _queue.Reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                while (_queue.Reader.Count > 0)
                {
                    int dequeued = TakeBatch(batch);
                    if (dequeued == 0)
                        break;
                    count = KeepTaken(batch, dequeued);
                    if (count == 0)
                        continue;
                    for (int i = 0; i < count; i++)
                        CommandFraming.Write(
                            Context.Output,
                            batch[i].Command,
                            batch[i].Command.Body.Span,
                            Context.FrameMax
                        );
                    CommandFraming.ThrowIfNotDelivered(
                        await Context.Output.FlushAsync(_stop.Token).ConfigureAwait(false)
                    );
                    for (int i = 0; i < count; i++)
                    {
                        var done = batch[i];
                        done.Command.Release(Context.Pool);
                        done.Succeed();
                        if (RecycleWhenSignalled && done.Pooled)
                            _pool.Add(done);
                    }
                    count = 0;
                }
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            _queue.Writer.TryComplete(); // callers waiting for room see the fault
            for (int i = 0; i < count; i++)
                Fail(batch[i], ZooHelpers.Faulted(_name, ex));
            FailQueued(ZooHelpers.Faulted(_name, ex));
        }
    }

    /// <summary>Keeps, in order at the front of <paramref name="batch"/>, the dequeued entries the loop could claim
    /// (one whose caller withdrew it is its caller's); returns how many.</summary>
    private static int KeepTaken(CompletionEntry[] batch, int dequeued)
    {
        int kept = 0;
        for (int i = 0; i < dequeued; i++)
            if (batch[i].TryTake())
                batch[kept++] = batch[i];
        return kept;
    }

    private void Fail(CompletionEntry entry, Exception reason)
    {
        entry.Command.Release(Context.Pool);
        entry.Fail(reason);
    }

    private void FailQueued(Exception reason)
    {
        while (_queue.Reader.TryRead(out var entry))
            if (entry.TryTake())
                Fail(entry, reason);
    }

    /// <summary>Lets the loop drain within the drain timeout, then gives up; fails whatever is left.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _queue.Writer.TryComplete();
        if (!await _loop.EndsWithinAsync(Context, gaveUp: false).ConfigureAwait(false))
        {
            await _loop
                .GiveUpOnAsync(Context, _stop, reason => Interlocked.CompareExchange(ref _fault, reason, null))
                .ConfigureAwait(false);
        }
        FailQueued(ZooHelpers.Disposed(_name));
        GC.SuppressFinalize(this);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(_name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
