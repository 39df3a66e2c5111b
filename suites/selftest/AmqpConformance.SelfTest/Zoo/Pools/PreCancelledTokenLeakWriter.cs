using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer whose WriteAsync starts with the usual
/// <c>cancellationToken.ThrowIfCancellationRequested()</c>, before anything else, on the common convention that a call
/// which throws before it started has not taken ownership of its argument. The writer contract says otherwise: the
/// command is the writer's from the call on. A call made with a token that is already cancelled throws without
/// releasing its command, so its frames buffer (and body owner) leak. A token cancelled later, while the call waits for
/// the lock, is handled correctly.
/// </summary>
public sealed class PreCancelledTokenLeakWriter(WriterContext context)
    : InlineZooWriter(context, "pre-cancelled-token-leak")
{
    /// <inheritdoc />
    public override ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        // BUG: throws before taking ownership, so nobody releases the command.
        if (cancellationToken.IsCancellationRequested)
            return ValueTask.FromCanceled(cancellationToken);
        return base.WriteAsync(command, cancellationToken);
    }
}
