namespace AmqpConformance.Harness.Verdicts;

/// <summary>Visibility: a call that completed successfully has its bytes flushed to the output's reader without any
/// further action by the caller (no later call, no disposal, no completion of the output), within the harness's
/// bound.</summary>
public sealed class VisibilityChecker() : InvariantChecker(InvariantNames.Visibility)
{
    private protected override void Judge(ConformanceEvidence evidence, WireAssembly wire, ViolationList v)
    {
        foreach (var lapse in evidence.VisibilityLapses)
            v.Add(
                "not-flushed",
                $"{(lapse.Calls.Count == 1 ? "Call " : "Calls ")}{string.Join(", ", lapse.Calls)} completed successfully, but "
                    + $"{(lapse.Calls.Count == 1 ? "its" : "their")} bytes were still not flushed ({lapse.Point}) after the writer had sat idle for {lapse.Bound.TotalMilliseconds:0} ms "
                    + "with no other call in flight: it left them for a later action to push out.",
                null,
                lapse.Calls
            );
    }
}
