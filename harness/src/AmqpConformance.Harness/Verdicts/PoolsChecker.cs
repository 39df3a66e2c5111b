using AmqpConformance.Harness.Pooling;

namespace AmqpConformance.Harness.Verdicts;

/// <summary>Pools: after the writer is disposed every rental came back exactly once, nothing foreign came back, nothing
/// was written after return; every body owner was disposed exactly once, and not before its last body byte was in the
/// output.</summary>
public sealed class PoolsChecker() : InvariantChecker(InvariantNames.Pools)
{
    private protected override void Judge(ConformanceEvidence evidence, WireAssembly wire, ViolationList v)
    {
        foreach (var finding in evidence.Pool?.Findings ?? [])
            v.Add(RuleOf(finding.Kind), finding.Message);
        foreach (var finding in evidence.CallerArrayFindings)
            v.Add(RuleOf(finding.Kind), "caller's body array: " + finding.Message);

        foreach (var call in evidence.Calls.Where(c => c.HasBodyOwner))
        {
            if (call.BodyOwnerDisposals != 1)
                v.Add(
                    call.BodyOwnerDisposals == 0 ? "owner-not-disposed" : "owner-disposed-twice",
                    $"Call {call.Id}'s body owner was disposed {call.BodyOwnerDisposals} times; the writer must dispose it exactly once.",
                    null,
                    [call.Id]
                );
            if (call.BodyOwnerDisposedAtOutputBytes is { } at && wire.FirstOf(call.Id) is { } cmd && cmd.Complete)
            {
                var lastFrame = wire.BySequence[cmd.LastSequence];
                long end = lastFrame.WireOffset + lastFrame.WireLength - evidence.OutputWireOffset;
                if (at < end)
                    v.Add(
                        "owner-disposed-early",
                        $"Call {call.Id}'s body owner was disposed when the writer had output {at} bytes, but the call's last frame ({lastFrame.Sequence}) ends at byte {end}: the body memory was released before its bytes went out.",
                        [lastFrame.Sequence],
                        [call.Id]
                    );
            }
        }
    }

    /// <summary>The rule name reported for a pool finding.</summary>
    public static string RuleOf(PoolFindingKind kind) =>
        kind switch
        {
            PoolFindingKind.Leak => "rental-not-returned",
            PoolFindingKind.DoubleReturn => "double-return",
            PoolFindingKind.ForeignReturn => "foreign-return",
            _ => "write-after-return",
        };
}
