namespace AmqpConformance.Harness.Verdicts;

/// <summary>Lifecycle: DisposeAsync completes within its bound even on a stalled output; disposing a second time (after
/// the first returned, or alongside it) returns without error; every call pending when disposal began completes, and
/// succeeds only if its command went out before disposal returned; a call that starts after disposal returned fails and
/// writes nothing; nothing is written after disposal returned, nor flushed: no flush of the writer's is still pending
/// (one it did not cancel) when disposal returns, and none starts after. At no time does the writer complete its
/// output: that is the connection's. And the case ends: no thread that calls into the writer (a caller, or whoever
/// cancels a caller's token) is kept there for ever.</summary>
/// <remarks>Holds trivially where the harness did not dispose the writer (<see cref="ConformanceEvidence.Lifecycle"/>
/// is null).</remarks>
public sealed class LifecycleChecker() : InvariantChecker(InvariantNames.Lifecycle)
{
    private protected override void Judge(ConformanceEvidence evidence, WireAssembly wire, ViolationList v)
    {
        if (evidence.CaseHung is { } hung)
            v.Add(
                "case-hung",
                hung
                    + " A caller of the writer, or whoever cancels a caller's token, would hang the same way: a writer "
                    + "must not block the threads that call it or cancel its callers (say, by disposing a token registration while holding a "
                    + "lock the registration's callback takes).",
                null,
                null
            );
        if (evidence.Lifecycle?.OutputCompletedByWriterAt is { } completed)
            v.Add(
                "output-completed-by-writer",
                $"The writer completed its output at {completed.TotalMilliseconds:0.###} ms: the output is the connection's, "
                    + "which still writes to it after the writer is gone (connection.close, close-ok); completed, those writes fail and the broker "
                    + "sees the socket end without a close."
            );
        if (evidence.Lifecycle is not { DisposeInvokedAt: { } invoked } life)
            return;
        if (!life.DisposeCompleted)
            v.Add(
                "dispose-hung",
                $"DisposeAsync did not complete within {life.Bound.TotalSeconds:0.###} s of the case's clock"
                    + (
                        life.RealTimeBound is { } real
                            ? $" nor {real.TotalSeconds:0.###} s of real time (the factory's DisposeTimeout)"
                            : " (a disposal of this writer had already outlived the factory's DisposeTimeout of real time, so it was not waited again)"
                    )
                    + (
                        life.OutputStalledThroughDispose
                            ? " while the output accepted nothing: a writer must give up after WriterContext.DrainTimeout on WriterContext.TimeProvider, or within its factory's DisposeTimeout on a timer of its own."
                            : "."
                    )
            );
        if (life.FirstDisposalFailure is { } threw)
            v.Add(
                "dispose-threw",
                $"DisposeAsync threw {(threw.EndsWith('.') && !threw.EndsWith("...", StringComparison.Ordinal) ? threw[..^1] : threw)}. A connection's close path (Abort, CloseAsync, `await using`) disposes "
                    + "the writer, often because the transport already failed; an exception there hides the close's own outcome and skips "
                    + "whatever the connection cleans up next. A writer that stopped on a fault reports it to its callers, not to its disposer."
            );
        if (life.SecondDisposal is { } how && life.SecondDisposalFailure is { } failure)
            v.Add(
                "second-dispose-failed",
                $"DisposeAsync, called a second time ({how}), threw {failure}; disposing twice must be harmless."
            );
        var calls = evidence.Calls.ToDictionary(c => c.Id);
        foreach (int id in life.CallsPendingAtDispose)
        {
            if (!calls.TryGetValue(id, out var call))
                continue;
            if (call.Outcome == CallOutcome.Pending)
                v.Add(
                    "stranded-by-dispose",
                    $"Call {id} was pending when DisposeAsync began (at {invoked.TotalMilliseconds:0.###} ms) and never completed.",
                    null,
                    [id]
                );
        }
        foreach (var call in evidence.Calls.Where(c => c.Started > invoked && c.Outcome == CallOutcome.Succeeded))
        {
            var command = wire.FirstOf(call.Id);
            bool returnedBefore = life.DisposeReturnedAt is { } returned && call.Started > returned;
            if (returnedBefore)
                v.Add(
                    "succeeded-after-dispose",
                    $"Call {call.Id} started at {call.Started.TotalMilliseconds:0.###} ms, after DisposeAsync had returned, yet reported success.",
                    command?.FrameSequences,
                    [call.Id]
                );
            // A heartbeat call names nothing on the wire: the order invariant counts heartbeats (lost-heartbeat).
            else if (command is null && evidence.Fault is null && !call.Heartbeat)
                v.Add(
                    "accepted-during-dispose-and-dropped",
                    $"Call {call.Id} started while DisposeAsync was running (invoked at {invoked.TotalMilliseconds:0.###} ms) and "
                        + "reported success, but its command never reached the wire.",
                    null,
                    [call.Id]
                );
        }
        if (life.BytesWrittenAfterDispose > 0)
            v.Add(
                "write-after-dispose",
                $"The writer put {life.BytesWrittenAfterDispose} bytes into its output after DisposeAsync had completed."
            );
        if (life.DisposeCompleted && life.FlushPendingWhenDisposeReturned)
            v.Add(
                "flush-pending-after-dispose",
                "DisposeAsync returned while a flush of the writer's was still pending on its output, one it had not "
                    + "cancelled: a writer must finish or cancel (CancelPendingFlush) its flushes before disposal returns, or what they carry goes out after it."
            );
        if (life.DisposeCompleted && life.FlushesAfterDispose > 0)
            v.Add(
                "flush-after-dispose",
                $"The writer flushed its output {life.FlushesAfterDispose} time(s) after DisposeAsync had returned; nothing may be "
                    + "written after disposal returned, and bytes committed before it must not be sent after it either."
            );
    }
}
