using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Ordering;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue, capacity
/// <see cref="WriterContext.QueueCapacity"/>) with one FIFO queue per channel, drained round-robin one command per
/// channel per turn so that a busy channel cannot starve the others. Each channel's own order is kept, but across
/// channels it is not: if channel A has two commands queued and channel B's command was queued after both had
/// completed, the loop writes A1, B1, A2, so B1 overtakes A2 although A2's call ended before B1's began. With one
/// channel, or a loop that keeps up, the order is right.
/// </summary>
public sealed class RoundRobinChannelsWriter : IFrameWriter
{
    private const string Name = "round-robin-channels";
    private readonly WriterContext _context;
    private readonly Dictionary<ushort, Queue<StagedCommand>> _queues = [];
    private readonly List<ushort> _rotation = [];
    private readonly Channel<bool> _doorbell = Channel.CreateBounded<bool>(
        new BoundedChannelOptions(1) { FullMode = BoundedChannelFullMode.DropWrite }
    );
    private readonly SemaphoreSlim _space;
    private readonly object _gate = new();
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private int _next;
    private Exception? _fault;
    private int _disposed;

    public RoundRobinChannelsWriter(WriterContext context)
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
            if (!_queues.TryGetValue(command.Channel, out var queue))
            {
                _queues[command.Channel] = queue = new Queue<StagedCommand>();
                _rotation.Add(command.Channel);
            }
            queue.Enqueue(StagedCommand.Copy(command, _context.Pool));
        }
        _doorbell.Writer.TryWrite(true);
    }

    /// <summary>The next command, taking channels in turn.</summary>
    private bool TryTakeNext(out StagedCommand staged)
    {
        lock (_gate)
        {
            for (int i = 0; i < _rotation.Count; i++)
            {
                int index = (_next + i) % _rotation.Count;
                var queue = _queues[_rotation[index]];
                if (queue.Count == 0)
                    continue;
                staged = queue.Dequeue();
                // BUG: the turn passes to the next channel, whatever was queued first on any channel.
                _next = (index + 1) % _rotation.Count;
                return true;
            }
        }
        staged = default;
        return false;
    }

    private async Task LoopAsync()
    {
        StagedCommand current = default;
        bool holding = false;
        try
        {
            while (await _doorbell.Reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                _doorbell.Reader.TryRead(out _);
                while (TryTakeNext(out current))
                {
                    holding = true;
                    CommandFraming.Write(_context.Output, current.Command, current.Body, _context.FrameMax);
                    CommandFraming.ThrowIfNotDelivered(
                        await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false)
                    );
                    holding = false;
                    current.Release(_context.Pool);
                    _space.Release();
                }
            }
        }
        catch (Exception ex)
        {
            if (holding)
                current.Release(_context.Pool);
            lock (_gate)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                foreach (var queue in _queues.Values)
                    while (queue.TryDequeue(out var dropped))
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
            foreach (var queue in _queues.Values)
                while (queue.TryDequeue(out var left))
                    left.Release(_context.Pool);
        }
    }
}
