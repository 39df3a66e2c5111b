namespace AmqpConformance.Harness.Verdicts;

/// <summary>Faults: nothing hangs (every call completes); after the output reported a fault the writer puts no more
/// bytes into it; once a call has failed because of the fault, every call that starts later fails; every call that
/// starts a grace period after the writer saw the fault fails (the grace on the case's clock and, where measured, a
/// real-time grace too); failures carry a clear exception; pooled buffers still come back. For a writer whose factory
/// declares <see cref="Writers.WriterCompletion.AfterFlush"/>, every call that reported success had its whole command
/// delivered by a flush that returned successfully before it completed, fault or no fault.</summary>
public sealed class FaultsChecker() : InvariantChecker(InvariantNames.Faults)
{
    private static readonly string[] BugExceptionTypes =
    [
        nameof(NullReferenceException),
        nameof(IndexOutOfRangeException),
        nameof(ArgumentOutOfRangeException),
        nameof(InvalidCastException),
        nameof(AccessViolationException),
        nameof(ArgumentNullException),
        "AggregateException",
    ];

    /// <summary>How long after the writer saw the fault it may still accept calls (a writer that completes calls on
    /// enqueue learns of the fault on its own loop): calls that start later must fail. Generous (default 1 s), so that
    /// a correct writer on a loaded machine is never blamed; a writer that keeps accepting calls after a fault does so
    /// for ever.</summary>
    public TimeSpan Grace { get; init; } = DefaultGrace;

    /// <summary>The default <see cref="Grace"/>: 1 s. The harness gives a writer this much of the case's clock after a
    /// fault.</summary>
    public static readonly TimeSpan DefaultGrace = TimeSpan.FromSeconds(1);

    /// <summary>The real time, in which the process could run, the writer also gets after it saw the fault before a
    /// call that succeeds is held against it (default 100 ms; judged where the harness measures it,
    /// <see cref="CallRecord.RunnableAfterFaultSeen"/>). <see cref="Grace"/> is on the case's clock, which the harness
    /// skips: a writer whose own thread marks it faulted (a dedicated loop thread, a timer) needs that thread to have
    /// run, and on a loaded machine a second of the case's clock can pass in a moment of real time. A writer that keeps
    /// accepting calls after a fault does so whatever the time given.</summary>
    public TimeSpan RealGrace { get; init; } = DefaultRealGrace;

    /// <summary>The default <see cref="RealGrace"/>: 100 ms. The harness waits this much real time after a fault before
    /// a call past <see cref="DefaultGrace"/>.</summary>
    public static readonly TimeSpan DefaultRealGrace = TimeSpan.FromMilliseconds(100);

    private protected override void Judge(ConformanceEvidence evidence, WireAssembly wire, ViolationList v)
    {
        foreach (var call in evidence.Calls.Where(c => c.BlockedCaller))
            v.Add(
                "blocked-caller",
                $"Call {call.Id} (publisher {call.Publisher}, started at {call.Started.TotalMilliseconds:0.###} ms): WriteAsync kept its caller's "
                    + "thread for the whole call timeout instead of returning a task (a blocking wait inside it: sync over async). Callers on the thread "
                    + "pool starve it, and a caller that would have released what the writer waits for deadlocks; the harness cancelled the call's "
                    + "token to get the thread back.",
                null,
                [call.Id]
            );
        foreach (var call in evidence.Calls.Where(c => c.Outcome == CallOutcome.Pending))
            v.Add(
                "call-hung",
                $"Call {call.Id} (publisher {call.Publisher}, started at {call.Started.TotalMilliseconds:0.###} ms) never completed"
                    + (evidence.Fault is { } f ? $" after the transport fault ({f.Description})." : "."),
                null,
                [call.Id]
            );
        foreach (var call in evidence.Calls.Where(c => c.Outcome == CallOutcome.Failed))
        {
            string error = call.Error ?? "";
            int colon = error.IndexOf(':', StringComparison.Ordinal);
            string type = colon < 0 ? error : error[..colon];
            if (
                string.IsNullOrWhiteSpace(error)
                || BugExceptionTypes.Any(b => type.EndsWith(b, StringComparison.Ordinal))
            )
                v.Add(
                    "unclear-exception",
                    $"Call {call.Id} failed with \"{error}\", which says nothing about the connection's state; expected an I/O, disposed or invalid-operation error.",
                    null,
                    [call.Id]
                );
        }

        if (evidence.DeclaredCompletion == Writers.WriterCompletion.AfterFlush && evidence.OutputDeliveryTracked)
            CheckDelivered(evidence, v);

        if (evidence.Fault is { } fault)
        {
            if (fault.BytesWrittenAfterFault > 0)
                v.Add(
                    "bytes-after-fault",
                    $"The writer put {fault.BytesWrittenAfterFault} bytes into its output after the output had reported the fault ({fault.Description})."
                );
            if (fault.ObservedAt is { } seen)
                CheckCallsAfterFault(evidence, seen, v);
            foreach (var leak in (evidence.Pool?.Findings ?? []).Where(i => i.Kind == Pooling.PoolFindingKind.Leak))
                v.Add("buffers-not-returned-after-fault", $"After the fault, a rental never came back: {leak.Message}");
        }
    }

    /// <summary>A writer that declares it completes calls after their flush promises more than one that completes on
    /// accept: a call that reports success had its bytes handed on by a flush that succeeded. So a transport fault does
    /// not excuse a success whose command a flush did not deliver (it threw, reported the reader completed, was
    /// cancelled, or never came). Judged against the writer's own output, not the broker: bytes a successful flush
    /// handed on and the transport lost afterwards (a reset, a data limit) are not the writer's doing.</summary>
    private static void CheckDelivered(ConformanceEvidence evidence, ViolationList v)
    {
        // Heartbeat calls name nothing in the output, so where each one's frame ends is not known: not judged here (the
        // order invariant counts them).
        foreach (var call in evidence.Calls.Where(c => c.Outcome == CallOutcome.Succeeded && !c.Heartbeat))
        {
            string faultNote = evidence.Fault is { } f ? $" (the transport fault: {f.Description})" : "";
            if (call.OutputEndByte is not { } end)
                v.Add(
                    "succeeded-but-not-delivered",
                    $"Call {call.Id} (publisher {call.Publisher}, #{call.IndexInPublisher}) reported success, but its whole command "
                        + $"never went into the output; the writer declares it completes calls after their flush{faultNote}.",
                    null,
                    [call.Id]
                );
            else if (call.DeliveredOutputBytesAtCompletion is not { } delivered || delivered < end)
            {
                long? byThen = call.DeliveredOutputBytesAtCompletion;
                v.Add(
                    "succeeded-but-not-delivered",
                    $"Call {call.Id} (publisher {call.Publisher}, #{call.IndexInPublisher}) reported success, but its command "
                        + $"(output bytes up to {end}) had not been delivered by a successful flush when it completed "
                        + $"(successful flushes had delivered {(byThen is { } d ? $"{d} bytes" : "nothing")} by then); the writer declares "
                        + $"it completes calls after their flush, so a flush that threw, reported the reader completed or was cancelled must fail the call{faultNote}.",
                    null,
                    [call.Id]
                );
            }
        }
    }

    private void CheckCallsAfterFault(ConformanceEvidence evidence, TimeSpan seen, ViolationList v)
    {
        var afterFault = evidence.Calls.Where(c => c.Started > seen).OrderBy(c => c.Started).ToList();
        // Once the writer has failed a call that started after it saw the fault, it knows: later calls must fail too.
        var firstFailure = afterFault
            .Where(c => c.Outcome == CallOutcome.Failed && c.Ended is not null)
            .MinBy(c => c.Ended);
        foreach (var call in afterFault.Where(c => c.Outcome == CallOutcome.Succeeded))
        {
            if (firstFailure is not null && call.Started > firstFailure.Ended)
                v.Add(
                    "succeeded-after-failure",
                    $"Call {call.Id} started at {call.Started.TotalMilliseconds:0.###} ms, after call {firstFailure.Id} had already failed "
                        + $"because of the fault (at {firstFailure.Ended!.Value.TotalMilliseconds:0.###} ms), yet reported success.",
                    null,
                    [firstFailure.Id, call.Id]
                );
            else if (call.Started > seen + Grace && (call.RunnableAfterFaultSeen is not { } real || real >= RealGrace))
                v.Add(
                    "succeeded-after-fault",
                    $"Call {call.Id} started at {call.Started.TotalMilliseconds:0.###} ms, more than {Grace.TotalMilliseconds:0} ms after the writer "
                        + $"had seen the fault at {seen.TotalMilliseconds:0.###} ms"
                        + (
                            call.RunnableAfterFaultSeen is { } given
                                ? $" ({given.TotalMilliseconds:0} ms of it in real time in which the process could run)"
                                : ""
                        )
                        + ", yet reported success.",
                    null,
                    [call.Id]
                );
        }
        // A call on a failed writer must fail with the failure, not as a cancellation nobody asked for: a caller's
        // catch (OperationCanceledException) takes that for its own shutdown and drops the publish without a word, and
        // retry logic keyed on I/O errors never runs. Disposal may end calls as cancelled (the cancellation invariant
        // judges that).
        foreach (var call in afterFault.Where(c => c.Outcome == CallOutcome.Cancelled && c.CancelRequested == false))
        {
            if (evidence.Lifecycle?.MayHaveEndedCall(call) == true)
                continue;
            v.Add(
                "cancelled-after-fault",
                $"Call {call.Id} (publisher {call.Publisher}, #{call.IndexInPublisher}) started at {call.Started.TotalMilliseconds:0.###} ms, "
                    + $"after the writer had seen the fault at {seen.TotalMilliseconds:0.###} ms, and ended in cancellation ({call.Error}) though its token was never "
                    + "cancelled: it must fail with the writer's failure, or the caller takes the lost publish for its own cancellation.",
                null,
                [call.Id]
            );
        }
    }
}
