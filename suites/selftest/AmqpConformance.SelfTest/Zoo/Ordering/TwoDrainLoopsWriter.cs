using System.Threading.Channels;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.Ordering;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue) that runs two drain loops on its queue so that
/// one loop serializes a command (into a pooled buffer, outside the output lock) while the other is writing and
/// flushing. Each command still goes out whole, under the output lock, but when two commands are queued at once, loop A
/// takes the first and loop B the second, and whichever finishes serializing first takes the lock first: a large
/// command is overtaken by a small one queued after it, even from the same publisher.
/// </summary>
public sealed class TwoDrainLoopsWriter : IFrameWriter
{
    private const string Name = "two-drain-loops";
    private readonly WriterContext _context;
    private readonly Channel<StagedCommand> _queue;
    private readonly SemaphoreSlim _output = new(1, 1);
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loops;
    private Exception? _fault;
    private int _disposed;

    public TwoDrainLoopsWriter(WriterContext context)
    {
        _context = context;
        _queue = Channel.CreateBounded<StagedCommand>(
            new BoundedChannelOptions(context.QueueCapacity)
            {
                FullMode = BoundedChannelFullMode.Wait,
                SingleReader = false,
                SingleWriter = false,
                AllowSynchronousContinuations = false,
            }
        );
        // BUG: two readers of one FIFO queue: each takes commands in order, but they race each other to the output.
        _loops = Task.WhenAll(Task.Run(LoopAsync), Task.Run(LoopAsync));
    }

    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (
            ZooHelpers.RefuseOnEntry(
                ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed)),
                command,
                _context.Pool,
                cancellationToken
            ) is
            { } refused
        )
            return refused;
        var staged = StagedCommand.Copy(command, _context.Pool);
        if (_queue.Writer.TryWrite(staged))
            return default;
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
            while (await reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                while (reader.TryRead(out current))
                {
                    holding = true;
                    // Serialize outside the output lock, in parallel with the other loop's write and flush.
                    int length = checked((int)current.WireLength(_context.FrameMax));
                    byte[] image = _context.Pool.Rent(length);
                    try
                    {
                        int written = WriteImage(image, current);
                        await _output.WaitAsync(_stop.Token).ConfigureAwait(false);
                        try
                        {
                            if (Volatile.Read(ref _fault) is { } other)
                                throw new IOException("The other loop failed.", other);
                            _context.Output.Write(image.AsSpan(0, written));
                            CommandFraming.ThrowIfNotDelivered(
                                await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false)
                            );
                        }
                        finally
                        {
                            _output.Release();
                        }
                    }
                    finally
                    {
                        _context.Pool.Return(image);
                    }
                    holding = false;
                    current.Release(_context.Pool);
                }
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            if (holding)
                current.Release(_context.Pool);
            _queue.Writer.TryComplete();
            while (reader.TryRead(out var dropped))
                dropped.Release(_context.Pool);
        }
    }

    private int WriteImage(byte[] image, StagedCommand staged)
    {
        int position = staged.Command.FramesLength;
        staged.Command.Frames.Span.CopyTo(image);
        int max = AmqpConstants.MaxBodyFramePayload(_context.FrameMax);
        var body = staged.Body;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(max, body.Length)];
            FrameFormat.WriteHeader(image.AsSpan(position), FrameType.Body, staged.Command.Channel, chunk.Length);
            position += AmqpConstants.FrameHeaderSize;
            chunk.CopyTo(image.AsSpan(position));
            position += chunk.Length;
            image[position++] = AmqpConstants.FrameEnd;
            body = body[chunk.Length..];
        }
        return position;
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _queue.Writer.TryComplete();
        if (await WaitForLoopsAsync().ConfigureAwait(false))
            return;
        Interlocked.CompareExchange(ref _fault, new TimeoutException("DisposeAsync gave up draining."), null);
        await _stop.CancelAsync().ConfigureAwait(false);
        _context.Output.CancelPendingFlush();
        await WaitForLoopsAsync().ConfigureAwait(false);
    }

    private async Task<bool> WaitForLoopsAsync()
    {
        try
        {
            await _loops.WaitAsync(_context.DrainTimeout).ConfigureAwait(false);
            return true;
        }
        catch (TimeoutException)
        {
            return false;
        }
    }
}
