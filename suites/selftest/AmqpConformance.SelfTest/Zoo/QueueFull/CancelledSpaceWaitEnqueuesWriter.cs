using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.QueueFull;

/// <summary>
/// DELIBERATELY BROKEN: a background writer that makes the wait for queue space cancellable with
/// <c>WriteAsync(item).AsTask().WaitAsync(token)</c> instead of passing the token to <c>WriteAsync</c>. Cancelling abandons
/// the wait but not the write: the caller gets <see cref="OperationCanceledException"/> and releases the command, then, when
/// space frees up, the abandoned write enqueues it anyway and the loop writes (and releases again) a command whose call was
/// cancelled and whose buffers are back in the pool. Only a call cancelled while the queue is full is affected.
/// </summary>
public sealed class CancelledSpaceWaitEnqueuesWriter : IFrameWriter
{
    private const string Name = "cancelled-space-wait-enqueues";
    private readonly WriterContext _context;
    private readonly Channel<StagedCommand> _queue;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public CancelledSpaceWaitEnqueuesWriter(WriterContext context)
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
            // BUG: WaitAsync stops waiting, but the WriteAsync it wraps goes on and enqueues the command later.
            await _queue.Writer.WriteAsync(staged, CancellationToken.None).AsTask().WaitAsync(cancellationToken).ConfigureAwait(false);
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
                    CommandFraming.Write(_context.Output, current.Command, current.Body, _context.FrameMax);
                    CommandFraming.ThrowIfNotDelivered(await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false));
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
}
