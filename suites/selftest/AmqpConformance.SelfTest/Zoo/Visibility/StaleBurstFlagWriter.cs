using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Visibility;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue) that coalesces flushes: each time its loop wakes
/// up it notes whether more than one command is queued and, if so, writes them all and skips the flush, expecting the next round
/// to flush. When the burst ends in that very round, no next round comes: the commands just written (their calls long
/// completed) stay unflushed in the output until the next publish or disposal. A loop that wakes for one command at a time
/// flushes every time and is correct.
/// </summary>
public sealed class StaleBurstFlagWriter : IFrameWriter
{
    private const string Name = "stale-burst-flag";
    private readonly WriterContext _context;
    private readonly Channel<StagedCommand> _queue;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public StaleBurstFlagWriter(WriterContext context)
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
        var written = new List<StagedCommand>();
        try
        {
            while (await reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                // BUG: "more than one queued: another round follows and will flush" is decided once per wake-up; when the burst
                // ends this round, nothing follows, and the bytes of the commands just written stay unflushed.
                bool burst = reader.Count > 1;
                while (reader.TryRead(out var staged))
                {
                    written.Add(staged);
                    CommandFraming.Write(_context.Output, staged.Command, staged.Body, _context.FrameMax);
                }
                if (burst) continue;
                CommandFraming.ThrowIfNotDelivered(await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false));
                foreach (var w in written) w.Release(_context.Pool);
                written.Clear();
            }
            if (written.Count > 0)
            {
                CommandFraming.ThrowIfNotDelivered(await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false));
                foreach (var w in written) w.Release(_context.Pool);
                written.Clear();
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            foreach (var w in written) w.Release(_context.Pool);
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
