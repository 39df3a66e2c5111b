using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Visibility;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that finds a flush per acknowledgement wasteful. A command without content
/// (basic.ack, basic.cancel, channel.close: one small method frame) is written into the output and its call completes
/// at once, "the next publish's flush carries it out"; publishes are flushed as usual. While publishes keep coming
/// nobody notices; a method command that is the last before a pause (an ack after the last delivery, a close) sits in
/// the output's buffer, and the broker never sees it.
/// </summary>
public sealed class MethodLeftUnflushedWriter(WriterContext context) : InlineZooWriter(context, "method-left-unflushed")
{
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        CommandFraming.Write(Context.Output, command, command.Body.Span, Context.FrameMax);
        // BUG: a command without content is left for the next publish's flush.
        if (command.HasContent)
            CommandFraming.ThrowIfNotDelivered(
                await Context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
            );
    }
}
