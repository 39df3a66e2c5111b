namespace AmqpConformance.Harness.Verdicts;

/// <summary>Faults: nothing hangs (every call completes, the writer disposes); after the output reported a fault the writer puts
/// no more bytes into it, calls that start after that fail, failures carry a clear exception, and pooled buffers still come back.</summary>
public sealed class FaultsChecker : IInvariantChecker
{
    private static readonly string[] BugExceptionTypes =
    [
        nameof(NullReferenceException), nameof(IndexOutOfRangeException), nameof(ArgumentOutOfRangeException),
        nameof(InvalidCastException), nameof(AccessViolationException), nameof(ArgumentNullException), "AggregateException",
    ];

    /// <inheritdoc />
    public string Invariant => InvariantNames.Faults;

    /// <summary>How long after seeing the fault a writer may still accept calls: a writer that completes calls on enqueue
    /// cannot close its queue in the same instant its flush fails. Calls that start later than this must fail (default 10 ms).</summary>
    public TimeSpan Promptness { get; init; } = TimeSpan.FromMilliseconds(10);

    /// <inheritdoc />
    public Verdict Check(ConformanceEvidence evidence, WireAssembly wire)
    {
        ArgumentNullException.ThrowIfNull(evidence);
        ArgumentNullException.ThrowIfNull(wire);
        var v = new ViolationList(Invariant);
        foreach (var call in evidence.Calls.Where(c => c.Outcome == CallOutcome.Pending))
            v.Add("call-hung", $"Call {call.Id} (publisher {call.Publisher}, started at {call.Started.TotalMilliseconds:0.###} ms) never completed" +
                (evidence.Fault is { } f ? $" after the transport fault ({f.Description})." : "."), null, [call.Id]);
        if (!evidence.WriterDisposed)
            v.Add("dispose-hung", "The writer's DisposeAsync did not complete within the harness's time limit.");
        foreach (var call in evidence.Calls.Where(c => c.Outcome == CallOutcome.Failed))
        {
            string error = call.Error ?? "";
            int colon = error.IndexOf(':', StringComparison.Ordinal);
            string type = colon < 0 ? error : error[..colon];
            if (string.IsNullOrWhiteSpace(error) || BugExceptionTypes.Any(b => type.EndsWith(b, StringComparison.Ordinal)))
                v.Add("unclear-exception", $"Call {call.Id} failed with \"{error}\", which says nothing about the connection's state; expected an I/O, disposed or invalid-operation error.", null, [call.Id]);
        }

        if (evidence.Fault is { } fault)
        {
            if (fault.BytesWrittenAfterFault > 0)
                v.Add("bytes-after-fault", $"The writer put {fault.BytesWrittenAfterFault} bytes into its output after the output had reported the fault ({fault.Description}).");
            if (fault.ObservedAt is { } seen)
                foreach (var call in evidence.Calls.Where(c => c.Started > seen + Promptness && c.Outcome == CallOutcome.Succeeded))
                    v.Add("succeeded-after-fault", $"Call {call.Id} started at {call.Started.TotalMilliseconds:0.###} ms, more than {Promptness.TotalMilliseconds:0} ms after the writer had seen the fault at {seen.TotalMilliseconds:0.###} ms, yet reported success.", null, [call.Id]);
            foreach (var issue in evidence.Pool.Issues.Where(i => i.Kind == PoolIssueKind.Leak))
                v.Add("buffers-not-returned-after-fault", $"After the fault, a rental never came back: {issue.Description}");
        }
        return v.ToVerdict();
    }
}
