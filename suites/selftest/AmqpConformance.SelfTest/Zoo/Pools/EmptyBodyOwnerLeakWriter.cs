using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that releases a delivered command by hand instead of through
/// <see cref="OutgoingCommand.Release"/>, skipping the owner of a body that has nothing in it ("an empty body owns no
/// memory"): it returns the rented frames and disposes the body owner only when the body has bytes. A publish with an
/// empty body and an owner (a zero-length slice of a pooled buffer, as a client whose publishes always rent sends for
/// an empty message) never has its owner disposed, so the caller's buffer never goes back to its pool. Owned bodies of
/// one byte or more, empty bodies without an owner, and every command the writer gives up on (released whole) are
/// handled right.
/// </summary>
public sealed class EmptyBodyOwnerLeakWriter(WriterContext context) : InlineZooWriter(context, "empty-body-owner-leak")
{
    /// <inheritdoc />
    protected override void Delivered(in OutgoingCommand command)
    {
        Context.Pool.Return(command.RentedFrames);
        // BUG: the owner of an empty body is never disposed.
        if (!command.Body.IsEmpty)
            command.BodyOwner?.Dispose();
    }
}
