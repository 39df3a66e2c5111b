using System.Diagnostics;
using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Lifecycle;

/// <summary>
/// DELIBERATELY BROKEN: a background (bounded channel, copy, complete on enqueue) writer whose DisposeAsync waits until the
/// queue is empty rather than until its loop has finished. The loop takes a command off the queue before it writes it, so
/// DisposeAsync can return while the last command is still being written: its bytes go into the output after disposal
/// (or, if the connection has completed the output by then, are lost though the call reported success). Disposal of a
/// writer whose loop is idle is correct.
/// </summary>
public sealed class EarlyDisposeReturnWriter : IFrameWriter
{
    private const string Name = "early-dispose-return";
    private readonly WriterContext _context;
    private readonly Channel<StagedCommand> _queue;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public EarlyDisposeReturnWriter(WriterContext context)
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
        // BUG: "drained" is judged by the queue's count, not by the loop's completion: the command the loop has just taken
        // off the queue is still being written when this returns.
        var waited = Stopwatch.StartNew();
        while (_queue.Reader.Count > 0 && waited.Elapsed < _context.DrainTimeout)
            await Task.Delay(1).ConfigureAwait(false);
        if (_queue.Reader.Count == 0) return;
        Interlocked.CompareExchange(ref _fault, new TimeoutException("DisposeAsync gave up draining."), null);
        await _stop.CancelAsync().ConfigureAwait(false);
        _context.Output.CancelPendingFlush();
        try { await _loop.WaitAsync(_context.DrainTimeout).ConfigureAwait(false); } catch (TimeoutException) { }
    }
}
