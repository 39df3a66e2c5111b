using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that reports the call whose flush failed correctly, and every later call on
/// the failed writer as a cancellation ("the connection is shutting down, so the publish was cancelled"): it releases
/// the command and throws <see cref="OperationCanceledException"/> although the caller's token was never cancelled.
/// Nothing wrong reaches the wire and no call claims success; but a caller's <c>catch (OperationCanceledException)</c>
/// takes the lost publish for its own shutdown, and retry logic keyed on I/O errors never runs. Only the faults
/// invariant's <c>cancelled-after-fault</c> rule catches it.
/// </summary>
public sealed class StoppedAsCancellationWriter(WriterContext context)
    : InlineZooWriter(context, "stopped-as-cancellation")
{
    /// <inheritdoc />
    public override ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is FrameWriterFaultedException)
        {
            command.Release(Context.Pool);
            return ValueTask.FromException(
                new OperationCanceledException("The writer has stopped; the publish was cancelled.")
            );
        }
        return base.WriteAsync(command, cancellationToken);
    }
}
