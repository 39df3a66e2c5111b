using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that gives a command's frames buffer and body owner back as soon as its bytes
/// are in the output, before the flush ("the pipe has copied them, nothing reads them any more"), which is allowed; but
/// its failure path is the shared one that releases the command in hand, so a flush that throws, reports the reader
/// completed or is cancelled by a disposal that gives up releases the command a second time: its frames buffer goes
/// back to the pool twice and its body owner is disposed twice. Every successful flush is right.
/// </summary>
public sealed class ReleasedBeforeFlushWriter(WriterContext context) : InlineZooWriter(context, "released-before-flush")
{
    /// <inheritdoc />
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        WriteCommand(Context.Output, command, Context.FrameMax);
        command.Release(Context.Pool); // its bytes are in the output
        // BUG: if the flush fails, the caller's failure path releases the command again.
        CommandFraming.ThrowIfNotDelivered(
            await Context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
        );
    }

    /// <inheritdoc />
    protected override void Delivered(in OutgoingCommand command)
    {
        // Already released once its bytes were written.
    }
}
