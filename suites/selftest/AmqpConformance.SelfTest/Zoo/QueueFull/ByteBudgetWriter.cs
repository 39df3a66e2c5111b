using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.QueueFull;

/// <summary>
/// DELIBERATELY BROKEN: a background writer that bounds its queue in bytes rather than in commands, with a budget of
/// <see cref="WriterContext.QueueCapacity"/> frames of frame_max bytes each, and treats a budget of 0 as "no limit".
/// Under a negotiated frame_max the queue is bounded (callers wait for space); when frame_max is 0 (unlimited) the
/// budget is 0 and the queue is unbounded, so a stalled transport lets body copies pile up without limit.
/// </summary>
public sealed class ByteBudgetWriter : IFrameWriter
{
    private const string Name = "byte-budget";
    private readonly WriterContext _context;
    private readonly Channel<(StagedCommand Staged, long Cost)> _queue;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private readonly object _gate = new();
    private readonly long _budget;
    private long _queuedBytes;
    private TaskCompletionSource _spaceFreed = NewSignal();
    private Exception? _fault;
    private int _disposed;

    public ByteBudgetWriter(WriterContext context)
    {
        _context = context;
        // BUG: frame_max 0 means "unlimited frames", so the budget comes out as 0, which the gate below reads as "no
        // limit".
        _budget = (long)context.QueueCapacity * context.FrameMax;
        _queue = Channel.CreateUnbounded<(StagedCommand, long)>(
            new UnboundedChannelOptions
            {
                SingleReader = true,
                SingleWriter = false,
                AllowSynchronousContinuations = false,
            }
        );
        _loop = Task.Run(LoopAsync);
    }

    private static TaskCompletionSource NewSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } stopped)
        {
            command.Release(_context.Pool);
            throw stopped;
        }
        long cost = command.WireLength(_context.FrameMax);
        try
        {
            await ReserveAsync(cost, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception)
        {
            command.Release(_context.Pool);
            throw;
        }
        var staged = StagedCommand.Copy(command, _context.Pool);
        if (!_queue.Writer.TryWrite((staged, cost)))
        {
            Free(cost);
            staged.Release(_context.Pool);
            throw Stopped() ?? ZooHelpers.Disposed(Name);
        }
    }

    /// <summary>Waits until <paramref name="bytes"/> fit the budget (an empty queue always admits one
    /// command).</summary>
    private async ValueTask ReserveAsync(long bytes, CancellationToken cancellationToken)
    {
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (Stopped() is { } stopped)
                throw stopped;
            Task freed;
            lock (_gate)
            {
                if (_budget == 0 || _queuedBytes == 0 || _queuedBytes + bytes <= _budget)
                {
                    _queuedBytes += bytes;
                    return;
                }
                freed = _spaceFreed.Task;
            }
            await freed.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    private void Free(long bytes)
    {
        TaskCompletionSource signal;
        lock (_gate)
        {
            _queuedBytes -= bytes;
            signal = _spaceFreed;
            _spaceFreed = NewSignal();
        }
        signal.TrySetResult();
    }

    private async Task LoopAsync()
    {
        var reader = _queue.Reader;
        (StagedCommand Staged, long Cost) current = default;
        bool holding = false;
        try
        {
            while (await reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                while (reader.TryRead(out current))
                {
                    holding = true;
                    CommandFraming.Write(
                        _context.Output,
                        current.Staged.Command,
                        current.Staged.Body,
                        _context.FrameMax
                    );
                    CommandFraming.ThrowIfNotDelivered(
                        await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false)
                    );
                    holding = false;
                    current.Staged.Release(_context.Pool);
                    Free(current.Cost);
                }
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            if (holding)
            {
                current.Staged.Release(_context.Pool);
                Free(current.Cost);
            }
            _queue.Writer.TryComplete();
            while (reader.TryRead(out var dropped))
            {
                dropped.Staged.Release(_context.Pool);
                Free(dropped.Cost);
            }
            Free(0); // wake every caller waiting for space: they see the fault
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _queue.Writer.TryComplete();
        Free(0);
        if (await _loop.EndsWithinAsync(_context, gaveUp: false).ConfigureAwait(false))
            return;
        await _loop
            .GiveUpOnAsync(_context, _stop, reason => Interlocked.CompareExchange(ref _fault, reason, null))
            .ConfigureAwait(false);
    }
}
