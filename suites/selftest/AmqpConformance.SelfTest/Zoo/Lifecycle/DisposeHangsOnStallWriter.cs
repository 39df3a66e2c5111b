using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Lifecycle;

/// <summary>
/// DELIBERATELY BROKEN: a background writer whose DisposeAsync completes the queue and awaits its loop with no drain
/// timeout and no way to abort the loop's pending flush. While the transport accepts bytes this drains and returns; when
/// the transport is stalled at disposal (the peer stopped reading), the loop's flush never completes and neither does
/// DisposeAsync.
/// </summary>
public sealed class DisposeHangsOnStallWriter : IFrameWriter
{
    private const string Name = "dispose-hangs-on-stall";
    private readonly WriterContext _context;
    private readonly Channel<StagedCommand> _queue;
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public DisposeHangsOnStallWriter(WriterContext context)
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
        StagedCommand current = default;
        bool holding = false;
        try
        {
            while (await reader.WaitToReadAsync().ConfigureAwait(false))
            {
                while (reader.TryRead(out current))
                {
                    holding = true;
                    CommandFraming.Write(_context.Output, current.Command, current.Body, _context.FrameMax);
                    CommandFraming.ThrowIfNotDelivered(await _context.Output.FlushAsync().ConfigureAwait(false));
                    holding = false;
                    current.Release(_context.Pool);
                }
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            if (holding) current.Release(_context.Pool);
            _queue.Writer.TryComplete();
            while (reader.TryRead(out var dropped)) dropped.Release(_context.Pool);
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        _queue.Writer.TryComplete();
        // BUG: no drain timeout and no CancelPendingFlush: a loop stuck in a flush to a stalled transport keeps this waiting forever.
        await _loop.ConfigureAwait(false);
    }
}
