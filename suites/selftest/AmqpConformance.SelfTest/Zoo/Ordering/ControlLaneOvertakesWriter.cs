using System.Collections.Concurrent;
using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Ordering;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue, capacity
/// <see cref="WriterContext.QueueCapacity"/>) with a fast lane for commands without content, so that acks and cancels
/// are not stuck behind megabytes of publishes: each round the loop writes every queued command without content first,
/// then the publishes. While the loop keeps up nothing changes; when a publish is still queued as a later call's method
/// command arrives, the method goes out first, although the publish's call completed before it started: a channel.close
/// would overtake the publishes before it and lose them.
/// </summary>
public class ControlLaneOvertakesWriter : IFrameWriter
{
    private const int Batch = 32;
    private readonly string _name;
    private readonly WriterContext _context;
    private readonly ConcurrentQueue<StagedCommand> _control = new();
    private readonly ConcurrentQueue<StagedCommand> _content = new();
    private readonly Channel<bool> _doorbell = Channel.CreateBounded<bool>(
        new BoundedChannelOptions(1) { FullMode = BoundedChannelFullMode.DropWrite }
    );
    private readonly SemaphoreSlim _space;
    private readonly object _gate = new();
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public ControlLaneOvertakesWriter(WriterContext context)
        : this(context, "control-lane-overtakes") { }

    /// <summary>For a writer whose fast lane takes other commands (<see cref="TakesFastLane"/>).</summary>
    protected ControlLaneOvertakesWriter(WriterContext context, string name)
    {
        _name = name;
        _context = context;
        _space = new SemaphoreSlim(context.QueueCapacity);
        _loop = Task.Run(LoopAsync);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(_name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));

    /// <summary>Whether <paramref name="command"/> goes into the lane the loop empties first: by default every command
    /// without content.</summary>
    protected virtual bool TakesFastLane(in OutgoingCommand command) => !command.HasContent;

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
            // BUG: two lanes; the loop empties the control lane first, whatever was queued before.
            (TakesFastLane(command) ? _control : _content).Enqueue(StagedCommand.Copy(command, _context.Pool));
        }
        _doorbell.Writer.TryWrite(true);
    }

    private async Task LoopAsync()
    {
        var batch = new StagedCommand[Batch];
        int count = 0;
        try
        {
            while (await _doorbell.Reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                _doorbell.Reader.TryRead(out _);
                while (true)
                {
                    while (count < Batch && _control.TryDequeue(out var method))
                        batch[count++] = method;
                    while (count < Batch && _content.TryDequeue(out var publish))
                        batch[count++] = publish;
                    if (count == 0)
                        break;
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
                DropQueued();
            }
            _space.Release(_context.QueueCapacity); // wake callers waiting for space: they see the fault
        }
    }

    private void DropQueued()
    {
        while (_control.TryDequeue(out var dropped))
            dropped.Release(_context.Pool);
        while (_content.TryDequeue(out var dropped))
            dropped.Release(_context.Pool);
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
            DropQueued();
    }
}
