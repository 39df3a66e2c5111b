using System.Diagnostics;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.QueueFull;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer with a "never block the publisher" twist: when another caller is writing, the
/// new caller copies its body into a pooled buffer, parks the copy on a pending list and completes at once; the caller
/// that is writing drains the list (FIFO) before it returns. Order, atomicity and body safety are all kept, but the
/// list has no bound: behind a stalled transport, every publish adds another body copy and nobody is ever made to wait.
/// </summary>
public sealed class UnboundedPendingListWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "unbounded-pending-list";
    private readonly object _gate = new();
    private readonly List<StagedCommand> _pending = [];
    private bool _busy;
    private Exception? _fault;
    private int _disposed;

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            command.Release(context.Pool);
            throw new OperationCanceledException(cancellationToken);
        }
        lock (_gate)
        {
            if (ZooHelpers.Stopped(Name, _fault, Volatile.Read(ref _disposed)) is { } stopped)
            {
                command.Release(context.Pool);
                throw stopped;
            }
            if (_busy)
            {
                // BUG: no limit on how many copies may wait here; the caller is never made to wait for the output.
                _pending.Add(StagedCommand.Copy(command, context.Pool));
                return;
            }
            _busy = true;
        }

        var batch = new List<StagedCommand> { StagedCommand.NoCopy(command) };
        bool ownFlushed = false;
        try
        {
            while (true)
            {
                foreach (var s in batch)
                    CommandFraming.Write(context.Output, s.Command, s.Body, context.FrameMax);
                CommandFraming.ThrowIfNotDelivered(
                    await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                );
                ownFlushed = true;
                foreach (var s in batch)
                    s.Release(context.Pool);
                batch.Clear();
                lock (_gate)
                {
                    if (_pending.Count == 0)
                    {
                        _busy = false;
                        return;
                    }
                    batch.AddRange(_pending);
                    _pending.Clear();
                }
            }
        }
        catch (Exception ex)
        {
            lock (_gate)
            {
                _fault ??= ex;
                batch.AddRange(_pending);
                _pending.Clear();
                _busy = false;
            }
            foreach (var s in batch)
                s.Release(context.Pool);
            if (!ownFlushed)
                throw ZooHelpers.Faulted(Name, ex);
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        var waited = Stopwatch.StartNew();
        while (waited.Elapsed < context.DrainTimeout)
        {
            lock (_gate)
            {
                if (!_busy)
                    return;
            }
            await Task.Delay(1).ConfigureAwait(false);
        }
        lock (_gate)
            _fault ??= new TimeoutException("DisposeAsync gave up draining.");
        context.Output.CancelPendingFlush();
    }
}
