using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Cancellation;

/// <summary>
/// DELIBERATELY BROKEN: a batching writer (queue without copy, one flush per batch, complete after the flush) that
/// makes queued calls cancellable the usual way, by registering <c>TrySetCanceled</c> on the caller's token, but never
/// takes the cancelled entry out of the queue: the loop writes it like any other. A call cancelled while it waits in
/// the queue (or while its batch is being flushed) reports <see cref="OperationCanceledException"/> for a publish that
/// reaches the broker. Tokens that fire before the call, or never, are handled correctly.
/// </summary>
public sealed class RegisteredCancelStillWrittenWriter : IFrameWriter
{
    private const string Name = "registered-cancel-still-written";
    private readonly WriterContext _context;
    private readonly Channel<Entry> _queue = Channel.CreateUnbounded<Entry>(
        new UnboundedChannelOptions { SingleReader = true }
    );
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public RegisteredCancelStillWrittenWriter(WriterContext context)
    {
        _context = context;
        _loop = Task.Run(LoopAsync);
    }

    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (
            ZooHelpers.RefuseOnEntry(
                ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed)),
                command,
                _context.Pool,
                cancellationToken
            ) is
            { } refused
        )
            return refused;
        var entry = new Entry(command);
        // BUG: cancellation completes the caller, but the entry stays queued and the loop never checks it.
        if (cancellationToken.CanBeCanceled)
            entry.Registration = cancellationToken.Register(static s => ((Entry)s!).Done.TrySetCanceled(), entry);
        if (!_queue.Writer.TryWrite(entry))
        {
            entry.Registration.Dispose();
            command.Release(_context.Pool);
            return ValueTask.FromException(ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), 1)!);
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
                    e.Registration.Dispose();
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
                e.Registration.Dispose();
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
        public CancellationTokenRegistration Registration { get; set; }
    }
}
