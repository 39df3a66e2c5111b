using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.QueueFull;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue) that bounds its queue with a <see cref="SemaphoreSlim"/>
/// of <see cref="WriterContext.QueueCapacity"/> slots, released by the loop after each command's flush. The caller gives its
/// slot back in a <c>finally</c> unless its command was queued, "so that no failure path can leak a slot"; but a wait for a slot
/// that was cancelled never took one, and the <c>finally</c> releases it all the same. The semaphore has no maximum, so each
/// call cancelled while the queue is full adds a slot for good, and afterwards more than QueueCapacity + 1 calls complete
/// unflushed while the output stalls. Calls that are not cancelled, or cancelled before they wait, are handled right.
/// </summary>
public sealed class CancelledWaitReleasesSlotWriter : IFrameWriter
{
    private const string Name = "cancelled-wait-releases-slot";
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

    /// <summary>Creates the writer and starts its loop.</summary>
    public CancelledWaitReleasesSlotWriter(WriterContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        _context = context;
        _slots = new SemaphoreSlim(context.QueueCapacity);
        _loop = Task.Run(LoopAsync);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));

    /// <inheritdoc />
    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (ZooHelpers.RefuseOnEntry(Stopped(), command, _context.Pool, cancellationToken) is { } refused)
        {
            await refused.ConfigureAwait(false);
            return;
        }
        bool queued = false;
        try
        {
            await _slots.EnterOrReleaseAsync(command, _context.Pool, cancellationToken).ConfigureAwait(false);
            if (Stopped() is { } stopped)
            {
                command.Release(_context.Pool);
                throw stopped;
            }
            var staged = StagedCommand.Copy(command, _context.Pool);
            if (!_queue.Writer.TryWrite(staged))
            {
                staged.Release(_context.Pool);
                throw Stopped() ?? ZooHelpers.Disposed(Name);
            }
            queued = true;
        }
        finally
        {
            // BUG: also runs when the wait for a slot was cancelled, so a slot that was never taken is given back.
            if (!queued) _slots.Release();
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

    /// <inheritdoc />
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
