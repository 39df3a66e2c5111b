using System.IO.Pipelines;
using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Ordering;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue) with an inline fast path: a caller that finds
/// the output gate free writes and flushes its own command at once (completing after the flush). The fast path trusts
/// that "the loop holds the gate while anything is queued", but the loop only takes the gate once it has woken up after
/// an enqueue, so in that window a new call finds the gate free while an earlier, already-completed command is still
/// queued, and overtakes it. Uncontended publishing never queues and is correct.
/// </summary>
public sealed class FastPathOvertakesWriter : IFrameWriter
{
    private const string Name = "fast-path-overtakes";
    private readonly WriterContext _context;
    private readonly Channel<StagedCommand> _queue;
    private readonly SemaphoreSlim _gate = new(1, 1);
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    public FastPathOvertakesWriter(WriterContext context)
    {
        _context = context;
        _queue = Channel.CreateBounded<StagedCommand>(
            new BoundedChannelOptions(context.QueueCapacity)
            {
                FullMode = BoundedChannelFullMode.Wait,
                SingleReader = true,
                SingleWriter = false,
                AllowSynchronousContinuations = false,
            }
        );
        _loop = Task.Run(LoopAsync);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));

    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (ZooHelpers.RefuseOnEntry(Stopped(), command, _context.Pool, cancellationToken) is { } refused)
            return refused;
        // BUG: a free gate is taken to mean "nothing queued"; the queue itself is not checked.
        if (_gate.Wait(0))
            return WriteDirectAsync(command);
        var staged = StagedCommand.Copy(command, _context.Pool);
        if (_queue.Writer.TryWrite(staged))
            return default;
        return WaitForSpaceAsync(staged, cancellationToken);
    }

    private async ValueTask WriteDirectAsync(OutgoingCommand command)
    {
        try
        {
            if (Stopped() is { } stopped)
            {
                command.Release(_context.Pool);
                throw stopped;
            }
            try
            {
                CommandFraming.Write(_context.Output, command, command.Body.Span, _context.FrameMax);
                CommandFraming.ThrowIfNotDelivered(
                    await _context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                );
            }
            catch (Exception ex)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                _queue.Writer.TryComplete();
                command.Release(_context.Pool);
                throw ZooHelpers.Faulted(Name, ex);
            }
            command.Release(_context.Pool);
        }
        finally
        {
            _gate.Release();
        }
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
            throw Stopped() ?? ZooHelpers.Disposed(Name);
        }
    }

    private async Task LoopAsync()
    {
        var reader = _queue.Reader;
        PipeWriter output = _context.Output;
        StagedCommand current = default;
        bool holding = false;
        try
        {
            while (await reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                await _gate.WaitAsync(_stop.Token).ConfigureAwait(false);
                try
                {
                    while (reader.TryRead(out current))
                    {
                        holding = true;
                        if (Volatile.Read(ref _fault) is { } cause)
                            throw new IOException("A fast-path write failed.", cause);
                        CommandFraming.Write(output, current.Command, current.Body, _context.FrameMax);
                        CommandFraming.ThrowIfNotDelivered(await output.FlushAsync(_stop.Token).ConfigureAwait(false));
                        holding = false;
                        current.Release(_context.Pool);
                    }
                }
                finally
                {
                    _gate.Release();
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
        // A fast-path fault completed the queue: release whatever the loop never got to.
        while (reader.TryRead(out var left))
            left.Release(_context.Pool);
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _queue.Writer.TryComplete();
        if (
            await _loop.EndsWithinAsync(_context, gaveUp: false).ConfigureAwait(false)
            && await _gate.WaitAsync(_context.DrainTimeout).ConfigureAwait(false)
        )
        {
            _gate.Release();
            return;
        }
        await _loop
            .GiveUpOnAsync(_context, _stop, reason => Interlocked.CompareExchange(ref _fault, reason, null))
            .ConfigureAwait(false);
        if (await _gate.WaitAsync(_context.DrainTimeout).ConfigureAwait(false))
            _gate.Release();
    }
}
