using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that, after the flush, releases only commands with content, reasoning that
/// <see cref="OutgoingCommand.Release"/> is about the body and its owner and a command without content (basic.ack,
/// basic.cancel: one method frame) has neither. It forgets the rented frames buffer every command carries, so each
/// command without content keeps its rental for ever: a client that acknowledges every delivery leaks one small rental
/// per ack.
/// </summary>
public sealed class MethodFramesLeakWriter(WriterContext context) : InlineZooWriter(context, "method-frames-leak")
{
    protected override void Delivered(in OutgoingCommand command)
    {
        // BUG: "nothing to release without a body": the rented frames of a command without content never go back.
        if (command.HasContent)
            command.Release(Context.Pool);
    }
}
