using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: a background writer whose loop treats a failed flush as that one command's problem: it records the
/// fault (so later calls are refused), releases the command and goes on with the next queued one, writing more bytes into
/// an output that has already reported the failure. With nothing queued behind the failing command it is correct; with a
/// publisher ahead of the output, every command queued at the time of the fault is written after it.
/// </summary>
public sealed class KeepWritingAfterFaultWriter : IFrameWriter
{
    private const string Name = "keep-writing-after-fault";
    private readonly WriterContext _context;
    private readonly Channel<StagedCommand> _queue;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public KeepWritingAfterFaultWriter(WriterContext context)
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
        try
        {
            while (await reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                while (reader.TryRead(out var current))
                {
                    try
                    {
                        CommandFraming.Write(_context.Output, current.Command, current.Body, _context.FrameMax);
                        CommandFraming.ThrowIfNotDelivered(await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false));
                    }
                    catch (Exception ex) when (!_stop.IsCancellationRequested)
                    {
                        // BUG: record the fault and carry on with the next queued command, instead of stopping the loop
                        // and releasing everything queued without writing it.
                        Interlocked.CompareExchange(ref _fault, ex, null);
                    }
                    finally
                    {
                        current.Release(_context.Pool);
                    }
                }
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
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
