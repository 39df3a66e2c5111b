using System.Collections.Concurrent;
using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Ordering;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue, capacity
/// <see cref="WriterContext.QueueCapacity"/>) that keeps its queue in a <see cref="ConcurrentStack{T}"/>, chosen
/// because <c>TryPopRange</c> lets the loop take a whole batch in one call, and writes each batch in the order popped:
/// newest first. While the loop keeps up (one command queued at a time) order is kept; when two or more commands are
/// queued at once, the later ones, whose calls already completed, go out before the earlier ones.
/// </summary>
public sealed class LifoQueueWriter : IFrameWriter
{
    private const string Name = "lifo-queue";
    private readonly WriterContext _context;
    private readonly ConcurrentStack<StagedCommand> _stack = new();
    private readonly Channel<bool> _doorbell = Channel.CreateBounded<bool>(
        new BoundedChannelOptions(1) { FullMode = BoundedChannelFullMode.DropWrite }
    );
    private readonly SemaphoreSlim _space;
    private readonly object _gate = new();
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public LifoQueueWriter(WriterContext context)
    {
        _context = context;
        _space = new SemaphoreSlim(context.QueueCapacity);
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
        await _space.EnterOrReleaseAsync(command, _context.Pool, cancellationToken).ConfigureAwait(false);
        lock (_gate)
        {
            if (Stopped() is { } stopped)
            {
                _space.Release();
                command.Release(_context.Pool);
                throw stopped;
            }
            // BUG: a stack: TryPopRange below hands the loop the newest command first.
            _stack.Push(StagedCommand.Copy(command, _context.Pool));
        }
        _doorbell.Writer.TryWrite(true);
    }

    private async Task LoopAsync()
    {
        var batch = new StagedCommand[32];
        int count = 0;
        try
        {
            while (await _doorbell.Reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                _doorbell.Reader.TryRead(out _);
                while ((count = _stack.TryPopRange(batch)) > 0)
                {
                    for (int i = 0; i < count; i++)
                        CommandFraming.Write(_context.Output, batch[i].Command, batch[i].Body, _context.FrameMax);
                    CommandFraming.ThrowIfNotDelivered(
                        await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false)
                    );
                    for (int i = 0; i < count; i++)
                        batch[i].Release(_context.Pool);
                    _space.Release(count);
                    count = 0;
                }
            }
        }
        catch (Exception ex)
        {
            for (int i = 0; i < count; i++)
                batch[i].Release(_context.Pool);
            lock (_gate)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                while (_stack.TryPop(out var dropped))
                    dropped.Release(_context.Pool);
            }
            _space.Release(_context.QueueCapacity); // wake callers waiting for space: they see the fault
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        lock (_gate)
            _doorbell.Writer.TryComplete();
        _space.Release(_context.QueueCapacity);
        bool drained = await _loop.EndsWithinAsync(_context, gaveUp: false).ConfigureAwait(false);
        if (!drained)
        {
            await _loop
                .GiveUpOnAsync(_context, _stop, reason => Interlocked.CompareExchange(ref _fault, reason, null))
                .ConfigureAwait(false);
        }
        lock (_gate)
        {
            while (_stack.TryPop(out var left))
                left.Release(_context.Pool);
        }
    }
}
