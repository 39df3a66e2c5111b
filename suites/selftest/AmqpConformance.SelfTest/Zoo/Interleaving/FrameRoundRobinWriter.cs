using System.IO.Pipelines;
using System.Threading.Channels;
using AmqpConformance.Protocol;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Interleaving;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue) whose loop, given a batch of queued commands, shares the
/// output fairly between channels: each turn, every channel sends one frame of its current command (the first turn of a command
/// sends its method, header and first body frame together), so a large body on one channel does not hold up the others. Per
/// channel the frames stay in order, which AMQP allows, but the writer's promise that each command is contiguous on the wire
/// breaks as soon as two queued commands on different channels include one whose body spans several frames.
/// </summary>
public sealed class FrameRoundRobinWriter : IFrameWriter
{
    private const string Name = "frame-round-robin";
    private readonly WriterContext _context;
    private readonly Channel<StagedCommand> _queue;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public FrameRoundRobinWriter(WriterContext context)
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
        var batch = new List<StagedCommand>(32);
        try
        {
            while (await reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                while (batch.Count < 32 && reader.TryRead(out var staged)) batch.Add(staged);
                WriteRoundRobin(_context.Output, batch, _context.FrameMax);
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

    private static void WriteRoundRobin(PipeWriter output, List<StagedCommand> batch, int frameMax)
    {
        int max = AmqpConstants.MaxBodyFramePayload(frameMax);
        var lanes = new List<Lane>();
        for (int i = 0; i < batch.Count; i++)
        {
            ushort channel = batch[i].Command.Channel;
            var lane = lanes.Find(l => l.Channel == channel);
            if (lane is null) lanes.Add(lane = new Lane(channel));
            lane.Pending.Enqueue(i);
        }
        bool any = true;
        while (any)
        {
            any = false;
            // BUG: one frame per channel per turn: frames of commands on different channels interleave on the wire.
            foreach (var lane in lanes)
            {
                if (lane.Current < 0)
                {
                    if (!lane.Pending.TryDequeue(out int next)) continue;
                    lane.Current = next;
                    lane.Offset = -1;
                }
                any = true;
                var staged = batch[lane.Current];
                var body = staged.Body;
                if (lane.Offset < 0)
                {
                    output.Write(staged.Command.Frames.Span);
                    lane.Offset = 0;
                }
                int n = Math.Min(max, body.Length - lane.Offset);
                if (n > 0)
                {
                    FrameFormat.WriteFrame(output, FrameType.Body, lane.Channel, body.Slice(lane.Offset, n));
                    lane.Offset += n;
                }
                if (lane.Offset >= body.Length) lane.Current = -1;
            }
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

    private sealed class Lane(ushort channel)
    {
        public ushort Channel { get; } = channel;
        public Queue<int> Pending { get; } = new();
        public int Current { get; set; } = -1;
        public int Offset { get; set; }
    }
}
