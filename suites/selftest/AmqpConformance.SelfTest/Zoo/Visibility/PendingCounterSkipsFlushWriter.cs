using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Visibility;

/// <summary>
/// DELIBERATELY BROKEN: a background writer that coalesces flushes: callers count themselves in (<c>_incoming</c>)
/// before they enqueue, the loop counts each command out as it takes it, and the loop skips the flush while more
/// commands are on their way. A caller whose wait for queue space is cancelled (or finds the writer stopped) never
/// counts itself out, so from then on the loop always believes more is coming and never flushes again: completed
/// publishes pile up unflushed until disposal. Without a cancelled wait for space (the queue never fills) the writer is
/// correct.
/// </summary>
public sealed class PendingCounterSkipsFlushWriter : IFrameWriter
{
    private const string Name = "pending-counter-skips-flush";
    private readonly WriterContext _context;
    private readonly Channel<StagedCommand> _queue;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;
    private int _incoming;

    public PendingCounterSkipsFlushWriter(WriterContext context)
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
        Interlocked.Increment(ref _incoming);
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
            // BUG: the caller counted itself in but never counts itself out, so the loop waits for it forever.
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
        var output = _context.Output;
        StagedCommand current = default;
        bool holding = false;
        var written = new List<StagedCommand>();
        try
        {
            while (await reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                while (reader.TryRead(out current))
                {
                    holding = true;
                    Interlocked.Decrement(ref _incoming);
                    CommandFraming.Write(output, current.Command, current.Body, _context.FrameMax);
                    written.Add(current);
                    holding = false;
                    if (Volatile.Read(ref _incoming) > 0)
                        continue; // more on its way: flush once for all of them
                    await FlushWrittenAsync(written).ConfigureAwait(false);
                }
            }
            await FlushWrittenAsync(written).ConfigureAwait(false);
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            if (holding)
                current.Release(_context.Pool);
            foreach (var w in written)
                w.Release(_context.Pool);
            written.Clear();
            _queue.Writer.TryComplete();
            while (reader.TryRead(out var dropped))
                dropped.Release(_context.Pool);
        }
    }

    private async ValueTask FlushWrittenAsync(List<StagedCommand> written)
    {
        if (written.Count == 0)
            return;
        CommandFraming.ThrowIfNotDelivered(await _context.Output.FlushAsync(_stop.Token).ConfigureAwait(false));
        foreach (var w in written)
            w.Release(_context.Pool);
        written.Clear();
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _queue.Writer.TryComplete();
        if (await _loop.EndsWithinAsync(_context, gaveUp: false).ConfigureAwait(false))
            return;
        await _loop
            .GiveUpOnAsync(_context, _stop, reason => Interlocked.CompareExchange(ref _fault, reason, null))
            .ConfigureAwait(false);
    }
}
