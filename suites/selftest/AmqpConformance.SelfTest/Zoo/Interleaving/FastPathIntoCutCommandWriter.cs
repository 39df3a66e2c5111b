using System.Threading.Channels;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.Interleaving;

/// <summary>
/// DELIBERATELY BROKEN: the correct bounded batching writer with two changes, each harmless alone. (a) Every flush
/// stays within 1 MiB exactly: the loop cuts a batch at the body frame that reaches 1 MiB, even inside a command, and
/// writes the rest of that command first thing in its next batch. (b) An uncontended fast path: a caller that finds
/// nothing queued and the output gate free writes and flushes its own command; and the loop completes a batch's callers
/// itself, after letting go of the gate, and yields so that they run before its next batch. While a cut command's rest
/// waits, nothing is queued and the gate is free, so a caller the loop just completed, publishing again at once, takes
/// the fast path and writes its command into the middle of the cut one. Batches under 1 MiB are correct.
/// </summary>
public sealed class FastPathIntoCutCommandWriter : IFrameWriter
{
    private const string Name = "fast-path-into-cut-command";
    private const long BatchCap = 1 << 20;
    private readonly SemaphoreSlim _gate = new(1, 1);
    private int _queued;
    private readonly WriterContext _context;
    private readonly Channel<Entry> _queue;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public FastPathIntoCutCommandWriter(WriterContext context)
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
        if (Volatile.Read(ref _queued) == 0 && _gate.Wait(0))
            return WriteDirectAsync(command);
        var entry = new Entry(command);
        Interlocked.Increment(ref _queued);
        if (_queue.Writer.TryWrite(entry))
            return new ValueTask(entry.Done.Task);
        return WaitForSpaceAsync(entry, cancellationToken);
    }

    /// <summary>The fast path: the caller holds the gate, writes and flushes its own command.</summary>
    private async ValueTask WriteDirectAsync(OutgoingCommand command)
    {
        try
        {
            if (Stopped() is { } stopped)
                throw stopped;
            CommandFraming.Write(_context.Output, command, command.Body.Span, _context.FrameMax);
            CommandFraming.ThrowIfNotDelivered(await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false));
        }
        catch (Exception ex) when (ex is not FrameWriterFaultedException and not ObjectDisposedException)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            throw ZooHelpers.Faulted(Name, ex);
        }
        finally
        {
            command.Release(_context.Pool);
            _gate.Release();
        }
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
            Interlocked.Decrement(ref _queued);
            entry.Command.Release(_context.Pool);
            throw;
        }
        if (!queued)
        {
            Interlocked.Decrement(ref _queued);
            entry.Command.Release(_context.Pool); // the queue was completed
            throw Stopped() ?? ZooHelpers.Disposed(Name);
        }
        await entry.Done.Task.ConfigureAwait(false);
    }

    private async Task LoopAsync()
    {
        var reader = _queue.Reader;
        var batch = new List<Entry>();
        Entry? carried = null; // a command cut by the last batch: its body frames from carriedOffset on are not written yet
        int carriedOffset = 0;
        try
        {
            while (carried is not null || await reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                await _gate.WaitAsync(_stop.Token).ConfigureAwait(false);
                try
                {
                    if (Volatile.Read(ref _fault) is { } fastPathFault)
                        throw fastPathFault; // a fast-path write failed: fail what is queued
                    long bytes = 0;
                    if (carried is not null)
                    {
                        carriedOffset = WriteBodyFrames(carried, carriedOffset, ref bytes);
                        if (carriedOffset == carried.Command.Body.Length)
                        {
                            batch.Add(carried);
                            carried = null;
                        }
                    }
                    while (carried is null && bytes < BatchCap && reader.TryRead(out var entry))
                    {
                        Interlocked.Decrement(ref _queued);
                        _context.Output.Write(entry.Command.Frames.Span);
                        bytes += entry.Command.FramesLength;
                        int offset = WriteBodyFrames(entry, 0, ref bytes);
                        if (offset < entry.Command.Body.Length)
                            (carried, carriedOffset) = (entry, offset); // BUG: cut inside a command
                        else
                            batch.Add(entry);
                    }
                    CommandFraming.ThrowIfNotDelivered(
                        await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false)
                    );
                }
                finally
                {
                    _gate.Release(); // BUG: free while a cut command's rest waits, and nothing is queued
                }
                foreach (var e in batch)
                {
                    e.Command.Release(_context.Pool);
                    e.Done.TrySetResult();
                }
                batch.Clear();
                await Task.Yield(); // fairness: let the callers just completed run before the next batch (BUG: with the gate free)
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            _queue.Writer.TryComplete();
            if (carried is not null)
                batch.Add(carried);
            while (reader.TryRead(out var queued))
                batch.Add(queued);
            foreach (var e in batch)
            {
                e.Command.Release(_context.Pool);
                e.Done.TrySetException(ZooHelpers.Faulted(Name, ex));
            }
        }
    }

    /// <summary>Writes <paramref name="entry"/>'s body frames from <paramref name="offset"/> on until
    /// <paramref name="bytes"/> reaches the batch cap; returns where it stopped (the body's length when it wrote them
    /// all).</summary>
    private int WriteBodyFrames(Entry entry, int offset, ref long bytes)
    {
        var body = entry.Command.Body.Span;
        int max = AmqpConstants.MaxBodyFramePayload(_context.FrameMax);
        while (offset < body.Length && bytes < BatchCap)
        {
            int n = Math.Min(max, body.Length - offset);
            FrameFormat.WriteFrame(_context.Output, FrameType.Body, entry.Command.Channel, body.Slice(offset, n));
            offset += n;
            bytes += n + AmqpConstants.FrameOverhead;
        }
        return offset;
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
