using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: a batching writer (queue without copy, one flush per batch, complete after the flush) that
/// relies on its queue to refuse calls once it has stopped, but whose loop, on a fault, fails the batch in hand and
/// returns without completing the queue. Commands queued at the time of the fault, and every call made after it, sit in
/// a queue nobody reads: their calls never complete. The call whose batch failed is reported correctly.
/// </summary>
public sealed class HangAfterFaultWriter : IFrameWriter
{
    private const string Name = "hang-after-fault";
    private readonly WriterContext _context;
    private readonly Channel<Entry> _queue = Channel.CreateUnbounded<Entry>(
        new UnboundedChannelOptions { SingleReader = true }
    );
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public HangAfterFaultWriter(WriterContext context)
    {
        _context = context;
        _loop = Task.Run(LoopAsync);
    }

    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Volatile.Read(ref _disposed) != 0)
        {
            command.Release(_context.Pool);
            return ValueTask.FromException(ZooHelpers.Disposed(Name));
        }
        if (cancellationToken.IsCancellationRequested)
        {
            command.Release(_context.Pool);
            return ValueTask.FromCanceled(cancellationToken);
        }
        var entry = new Entry(command);
        // A stopped writer has completed its queue, so TryWrite is how a call finds out.
        if (!_queue.Writer.TryWrite(entry))
        {
            command.Release(_context.Pool);
            var cause = Volatile.Read(ref _fault);
            return ValueTask.FromException(cause is null ? ZooHelpers.Disposed(Name) : ZooHelpers.Faulted(Name, cause));
        }
        return new ValueTask(entry.Done.Task);
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
            foreach (var e in batch)
            {
                e.Command.Release(_context.Pool);
                e.Done.TrySetException(ZooHelpers.Faulted(Name, ex));
            }
            // BUG: the queue is not completed and not drained: queued and later calls wait forever.
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
