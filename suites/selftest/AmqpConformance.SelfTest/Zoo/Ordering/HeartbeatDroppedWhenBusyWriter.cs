using System.Collections.Concurrent;
using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Ordering;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue, capacity
/// <see cref="WriterContext.QueueCapacity"/>, batches of up to 32 per flush) that takes "any traffic is a heartbeat" too
/// literally: when its loop dequeues a heartbeat frame while other commands are in the same batch or still queued, it
/// drops the heartbeat, although the heartbeat's call already completed. The broker sees other frames, so nothing
/// breaks until the other commands are small, slow or held back by flow control and the broker, hearing no heartbeat,
/// closes the connection for a missed heartbeat. While the loop keeps up nothing changes; it shows when a heartbeat call
/// is made while other commands are queued (a held or slow flush, concurrent publishers).
/// </summary>
public sealed class HeartbeatDroppedWhenBusyWriter : IFrameWriter
{
    private const int Batch = 32;
    private const string Name = "heartbeat-dropped-when-busy";
    private readonly WriterContext _context;
    private readonly ConcurrentQueue<StagedCommand> _queue = new();
    private readonly Channel<bool> _doorbell = Channel.CreateBounded<bool>(
        new BoundedChannelOptions(1) { FullMode = BoundedChannelFullMode.DropWrite }
    );
    private readonly SemaphoreSlim _space;
    private readonly object _gate = new();
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public HeartbeatDroppedWhenBusyWriter(WriterContext context)
    {
        _context = context;
        _space = new SemaphoreSlim(context.QueueCapacity);
        _loop = Task.Run(LoopAsync);
    }

    /// <summary>Whether <paramref name="command"/> is a heartbeat frame: 8 bytes, frame type 8, no content.</summary>
    internal static bool IsHeartbeat(in OutgoingCommand command) =>
        !command.HasContent && command.FramesLength == 8 && command.Frames.Span[0] == 8;

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
            _queue.Enqueue(StagedCommand.Copy(command, _context.Pool));
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
                    int dropped = 0;
                    while (count < Batch && _queue.TryDequeue(out var next))
                    {
                        // BUG: a heartbeat among other traffic is taken as redundant and dropped, although its call
                        // completed on enqueue.
                        if (IsHeartbeat(next.Command) && (count > 0 || !_queue.IsEmpty))
                        {
                            next.Release(_context.Pool);
                            dropped++;
                            continue;
                        }
                        batch[count++] = next;
                    }
                    if (dropped > 0)
                        _space.Release(dropped);
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
        while (_queue.TryDequeue(out var dropped))
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
