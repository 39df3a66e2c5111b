using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (unusual): a batching writer with a bounded queue that honours <see cref="WriterContext.QueueCapacity"/>
/// (callers wait for space, cancellably), no body copy, and a loop that writes everything queued (up to 1 MiB) in FIFO
/// order, flushes once, then completes each caller: a call completes only after the flush that carried its bytes.
/// Cancellation is honoured only before the command is queued (while waiting for space); a fault fails the batch,
/// everything queued and every later call.
/// </summary>
public sealed class BoundedBatchingWriter : IFrameWriter
{
    private const string Name = "bounded-batching";
    private readonly WriterContext _context;
    private readonly Channel<Entry> _queue;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public BoundedBatchingWriter(WriterContext context)
    {
        _context = context;
        _queue = Channel.CreateBounded<Entry>(
            new BoundedChannelOptions(context.QueueCapacity)
            {
                FullMode = BoundedChannelFullMode.Wait,
                SingleReader = true,
                SingleWriter = false,
                AllowSynchronousContinuations = false,
            }
        );
        _loop = Task.Run(LoopAsync);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));

    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (ZooHelpers.RefuseOnEntry(Stopped(), command, _context.Pool, cancellationToken) is { } refused)
            return refused;
        var entry = new Entry(command);
        if (_queue.Writer.TryWrite(entry))
            return new ValueTask(entry.Done.Task);
        return WaitForSpaceAsync(entry, cancellationToken);
    }

    /// <summary>Waits for queue space, then hands the entry over (WaitToWriteAsync + TryWrite, as the reference
    /// Background writer does: a cancellable WriteAsync can both cancel and deliver the item, dotnet/runtime#132230,
    /// and the command would be released twice).</summary>
    private async ValueTask WaitForSpaceAsync(Entry entry, CancellationToken cancellationToken)
    {
        bool queued = false;
        try
        {
            while (!queued && await _queue.Writer.WaitToWriteAsync(cancellationToken).ConfigureAwait(false))
                queued = _queue.Writer.TryWrite(entry);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            entry.Command.Release(_context.Pool);
            throw;
        }
        if (!queued)
        {
            entry.Command.Release(_context.Pool); // the queue was completed
            throw Stopped() ?? ZooHelpers.Disposed(Name);
        }
        await entry.Done.Task.ConfigureAwait(false);
    }

    private async Task LoopAsync()
    {
        var reader = _queue.Reader;
        var batch = new List<Entry>();
        try
        {
            while (await reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                long bytes = 0;
                while (bytes < 1 << 20 && reader.TryRead(out var entry))
                {
                    batch.Add(entry);
                    CommandFraming.Write(_context.Output, entry.Command, entry.Command.Body.Span, _context.FrameMax);
                    bytes += entry.Command.WireLength(_context.FrameMax);
                }
                CommandFraming.ThrowIfNotDelivered(await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false));
                foreach (var e in batch)
                {
                    e.Command.Release(_context.Pool);
                    e.Done.TrySetResult();
                }
                batch.Clear();
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            _queue.Writer.TryComplete();
            while (reader.TryRead(out var queued))
                batch.Add(queued);
            foreach (var e in batch)
            {
                e.Command.Release(_context.Pool);
                e.Done.TrySetException(ZooHelpers.Faulted(Name, ex));
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _queue.Writer.TryComplete();
        if (await _loop.EndsWithinAsync(_context, gaveUp: false).ConfigureAwait(false))
            return;
        await _loop
            .GiveUpOnAsync(_context, _stop, reason => Interlocked.CompareExchange(ref _fault, reason, null))
            .ConfigureAwait(false);
    }

    private sealed class Entry(OutgoingCommand command)
    {
        public OutgoingCommand Command { get; } = command;
        public TaskCompletionSource Done { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
    }
}
