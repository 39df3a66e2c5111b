using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (unusual): a delayed-flush writer (<see cref="DelayedFlushZooWriter"/>): a call writes its command under the
/// lock and releases it at once, then waits for a flush that a 1 ms timer on <see cref="WriterContext.TimeProvider"/>
/// issues for every call written meanwhile (Nagle-like); the timer clears its "scheduled" flag under the lock before it
/// flushes, so every call either joins the flush in progress's next round or arms the timer itself. No call completes
/// before the flush that carried it.
/// </summary>
public sealed class DelayedFlushWriter(WriterContext context) : DelayedFlushZooWriter(context, "delayed-flush")
{
    /// <inheritdoc />
    protected override bool ClearScheduledLate => false;
}
