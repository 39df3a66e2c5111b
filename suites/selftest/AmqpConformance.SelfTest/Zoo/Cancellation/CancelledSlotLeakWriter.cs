using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Cancellation;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue) that bounds its queue with a
/// <see cref="SemaphoreSlim"/> of <see cref="WriterContext.QueueCapacity"/> slots, released by the loop after each write.
/// After getting a slot the caller checks its token once more "in case it fired while we waited" and, if so, releases the
/// command and throws, without giving the slot back. Each such cancellation shrinks the queue for good; after
/// QueueCapacity of them every call waits forever. Tokens that fire before the wait, or never, are handled correctly.
/// </summary>
public sealed class CancelledSlotLeakWriter : IFrameWriter
{
    private const string Name = "cancelled-slot-leak";
    private readonly WriterContext _context;
    private readonly Channel<StagedCommand> _queue = Channel.CreateUnbounded<StagedCommand>(new UnboundedChannelOptions
    {
        SingleReader = true, SingleWriter = false, AllowSynchronousContinuations = false,
    });
    private readonly SemaphoreSlim _slots;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public CancelledSlotLeakWriter(WriterContext context)
    {
        _context = context;
        _slots = new SemaphoreSlim(context.QueueCapacity);
        _loop = Task.Run(LoopAsync);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(_context.Pool);
            throw early;
        }
        await _slots.EnterOrReleaseAsync(command, _context.Pool, cancellationToken).ConfigureAwait(false);
        if (cancellationToken.IsCancellationRequested)
        {
            // BUG: the slot just taken is not given back.
            command.Release(_context.Pool);
            throw new OperationCanceledException(cancellationToken);
        }
        if (Stopped() is { } stopped)
        {
            _slots.Release();
            command.Release(_context.Pool);
            throw stopped;
        }
        var staged = StagedCommand.Copy(command, _context.Pool);
        if (!_queue.Writer.TryWrite(staged))
        {
            _slots.Release();
            staged.Release(_context.Pool);
            throw Stopped() ?? ZooHelpers.Disposed(Name);
        }
    }

    private async Task LoopAsync()
    {
        var reader = _queue.Reader;
        StagedCommand current = default;
        bool holding = false;
        try
        {
            while (await reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                while (reader.TryRead(out current))
                {
                    holding = true;
                    CommandFraming.Write(_context.Output, current.Command, current.Body, _context.FrameMax);
                    CommandFraming.ThrowIfNotDelivered(await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false));
                    holding = false;
                    current.Release(_context.Pool);
                    _slots.Release();
                }
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            if (holding) current.Release(_context.Pool);
            _queue.Writer.TryComplete();
            while (reader.TryRead(out var dropped)) dropped.Release(_context.Pool);
            _slots.Release(_context.QueueCapacity); // wake callers waiting for a slot: they see the fault
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        _queue.Writer.TryComplete();
        _slots.Release(_context.QueueCapacity);
        if (await _loop.EndsWithinAsync(_context, gaveUp: false).ConfigureAwait(false)) return;
        Interlocked.CompareExchange(ref _fault, new TimeoutException("DisposeAsync gave up draining."), null);
        await _stop.CancelAsync().ConfigureAwait(false);
        _context.Output.CancelPendingFlush();
        await _loop.EndsWithinAsync(_context, gaveUp: true).ConfigureAwait(false);
    }
}
