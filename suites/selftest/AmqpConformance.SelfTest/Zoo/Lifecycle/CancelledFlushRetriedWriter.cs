using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Lifecycle;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that treats a flush coming back cancelled as a spurious wake-up and flushes
/// again. Its own calls never cancel a flush, so in ordinary use the retry never runs. The one who does is its own
/// DisposeAsync, giving up on a stalled output: the call in progress then starts a new flush, which nobody cancels, and
/// disposal returns (after waiting for the call in vain) with that flush pending; when the output drains, the command
/// goes out after disposal returned.
/// </summary>
public sealed class CancelledFlushRetriedWriter(WriterContext context)
    : InlineZooWriter(context, "cancelled-flush-retried")
{
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        WriteCommand(Context.Output, command, Context.FrameMax);
        var result = await Context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
        // BUG: a cancelled flush means someone gave up on the output; retrying it undoes the give-up.
        while (result.IsCanceled && !result.IsCompleted)
            result = await Context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
        CommandFraming.ThrowIfNotDelivered(result);
    }
}
