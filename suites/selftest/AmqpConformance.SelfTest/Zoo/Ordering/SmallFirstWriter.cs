using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Ordering;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue) whose loop takes up to 16 queued commands at a time
/// and, to cut latency for small messages stuck behind large ones, writes them smallest first (one flush per batch). A loop
/// that keeps up sees one command at a time and is correct; when several are queued, a publisher's small publish overtakes its
/// own earlier large one.
/// </summary>
public sealed class SmallFirstWriter : IFrameWriter
{
    private const string Name = "small-first";
    private readonly WriterContext _context;
    private readonly Channel<StagedCommand> _queue;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public SmallFirstWriter(WriterContext context)
    {
        _context = context;
        _queue = Channel.CreateBounded<StagedCommand>(new BoundedChannelOptions(context.QueueCapacity)
        {
            FullMode = BoundedChannelFullMode.Wait, SingleReader = true, SingleWriter = false, AllowSynchronousContinuations = false,
        });
        _loop = Task.Run(LoopAsync);
    }

    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed)) is { } stopped)
        {
            command.Release(_context.Pool);
            return ValueTask.FromException(stopped);
        }
        if (cancellationToken.IsCancellationRequested)
        {
            command.Release(_context.Pool);
            return ValueTask.FromCanceled(cancellationToken);
        }
        var staged = StagedCommand.Copy(command, _context.Pool);
        if (_queue.Writer.TryWrite(staged)) return default;
        return WaitForSpaceAsync(staged, cancellationToken);
    }

    private async ValueTask WaitForSpaceAsync(StagedCommand staged, CancellationToken cancellationToken)
    {
        try
        {
            await _queue.Writer.WriteAsync(staged, cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            staged.Release(_context.Pool);
            throw;
        }
        catch (ChannelClosedException)
        {
            staged.Release(_context.Pool);
            throw ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), 1)!;
        }
    }

    private async Task LoopAsync()
    {
        var reader = _queue.Reader;
        var batch = new List<StagedCommand>(16);
        int frameMax = _context.FrameMax;
        try
        {
            while (await reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                while (batch.Count < 16 && reader.TryRead(out var staged)) batch.Add(staged);
                // BUG: smallest first, across publishers and within one publisher's own sequence.
                batch.Sort((a, b) => a.WireLength(frameMax).CompareTo(b.WireLength(frameMax)));
                foreach (var staged in batch) CommandFraming.Write(_context.Output, staged.Command, staged.Body, frameMax);
                CommandFraming.ThrowIfNotDelivered(await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false));
                foreach (var staged in batch) staged.Release(_context.Pool);
                batch.Clear();
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            foreach (var staged in batch) staged.Release(_context.Pool);
            _queue.Writer.TryComplete();
            while (reader.TryRead(out var dropped)) dropped.Release(_context.Pool);
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        _queue.Writer.TryComplete();
        if (await WaitForLoopAsync().ConfigureAwait(false)) return;
        Interlocked.CompareExchange(ref _fault, new TimeoutException("DisposeAsync gave up draining."), null);
        await _stop.CancelAsync().ConfigureAwait(false);
        _context.Output.CancelPendingFlush();
        await WaitForLoopAsync().ConfigureAwait(false);
    }

    private async Task<bool> WaitForLoopAsync()
    {
        try
        {
            await _loop.WaitAsync(_context.DrainTimeout).ConfigureAwait(false);
            return true;
        }
        catch (TimeoutException)
        {
            return false;
        }
    }
}
