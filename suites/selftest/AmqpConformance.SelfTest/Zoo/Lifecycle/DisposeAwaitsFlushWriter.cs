using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Lifecycle;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer whose disposal waits for the write in progress by awaiting that write's flush
/// itself: it keeps the pending flush's ValueTask in a field and, on DisposeAsync, awaits it (bounded by the drain
/// timeout) before taking the lock. The call that issued the flush is awaiting the same ValueTask. Over ordinary tasks
/// that is harmless; a socket's pipe backs each flush with one reused source that may be consumed once, so the second
/// await breaks the flush and the call in progress fails although its bytes went out.
/// </summary>
public sealed class DisposeAwaitsFlushWriter(WriterContext context) : InlineZooWriter(context, "dispose-awaits-flush")
{
    private readonly object _sync = new();
    private ValueTask<FlushResult>? _inflight;

    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        CommandFraming.Write(Context.Output, command, command.Body.Span, Context.FrameMax);
        var flush = Context.Output.FlushAsync(CancellationToken.None);
        lock (_sync)
            _inflight = flush;
        try
        {
            CommandFraming.ThrowIfNotDelivered(await flush.ConfigureAwait(false));
        }
        finally
        {
            lock (_sync)
                _inflight = null;
        }
    }

    public override async ValueTask DisposeAsync()
    {
        ValueTask<FlushResult>? inflight;
        lock (_sync)
            inflight = _inflight;
        if (inflight is { } flush)
        {
            // BUG: the flush's ValueTask is already awaited by the call that issued it; awaiting it again consumes it
            // twice.
            try
            {
                await flush.AsTask().WaitAsync(Context.DrainTimeout, Context.TimeProvider).ConfigureAwait(false);
            }
            catch (Exception)
            { /* the call that issued the flush reports its failure */
            }
        }
        await base.DisposeAsync().ConfigureAwait(false);
    }
}
