using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Visibility;

/// <summary>
/// DELIBERATELY BROKEN: the delayed-flush writer (<see cref="DelayedFlushZooWriter"/>: a call writes its command under
/// the lock and waits for the flush a 1 ms timer issues for every call written meanwhile) whose timer clears its "flush
/// scheduled" flag only after it released the lock and signalled the calls its flush carried. A caller that makes its
/// next call from the previous call's completion (an <c>await</c> in a loop: the continuation runs on the timer's
/// thread, inside the signalling) writes that call while the flag still says a flush is scheduled, so it arms nothing;
/// the flag is then cleared and no flush ever carries the call: it never completes, and its bytes sit unflushed until
/// some other call arms the timer (or disposal flushes). A call made after the timer returned (any harness step in
/// between) arms the timer itself, so it shows only with a caller that continues from the completion.
/// <see cref="Correct.DelayedFlushWriter"/> clears the flag under the lock and is correct.
/// </summary>
public sealed class DelayedFlushLostWakeupWriter(WriterContext context)
    : DelayedFlushZooWriter(context, "delayed-flush-lost-wakeup")
{
    /// <inheritdoc />
    protected override bool ClearScheduledLate => true; // BUG: the window between signalling and clearing loses a wake-up
}
