using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Bodies;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (complete on enqueue) that copies bodies into pooled buffers before queuing
/// them, except bodies of 85,000 bytes or more ("not worth a second large-object-heap-sized copy"), which it queues as
/// the caller's memory. The call completes on enqueue, so the caller may reuse or return that memory before the loop
/// writes it: the wire then carries whatever the buffer holds by then. Smaller bodies, and bodies handed over with an
/// owner, are safe.
/// </summary>
public sealed class LargeBodyNoCopyWriter(WriterContext context) : StagedZooWriter(context, "large-body-no-copy")
{
    private protected override StagedCommand Stage(OutgoingCommand command)
    {
        // BUG: a large body is queued as the caller's memory, which the caller owns again as soon as this call
        // completes.
        if (command.BodyOwner is null && command.Body.Length >= 85_000)
            return StagedCommand.NoCopy(command);
        return StagedCommand.Copy(command, Context.Pool);
    }
}
