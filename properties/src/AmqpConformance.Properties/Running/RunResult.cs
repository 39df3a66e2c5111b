using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Properties.Running;

/// <summary>What one run of a scenario left behind: the evidence for the checkers and the frame log it came from (for
/// exports).</summary>
/// <param name="Scenario">The scenario that ran.</param>
/// <param name="Evidence">Frames, call timeline, pool ledger, injected fault and measurements.</param>
/// <param name="Log">The frame log, for JSON Lines and pcap export.</param>
public sealed record RunResult(Scenario Scenario, ConformanceEvidence Evidence, FrameLog Log)
{
    /// <summary>What the run put the writer through (cancellations while parked, disposal with calls
    /// pending...).</summary>
    public RunEvents Events { get; init; } = new();

    /// <summary>Where the run's time went; null for a runner that does not measure it.</summary>
    public RunPhases? Phases { get; init; }

    /// <summary>The faults the transport actually injected, one transcript per connection (every chunk delivered,
    /// stall, bytes dropped, reset, close, at its stream offset). Client level: the fault proxy's transcripts of the
    /// connections the client opened during the case, in the order accepted, each running the scenario's fault plan as
    /// it is (<see cref="Toxiproxy.FaultProxy.ApplyPlan"/>). Empty for a runner that does not carry them (writer level:
    /// the in-process transport's transcript is not carried here).</summary>
    public IReadOnlyList<FaultTranscript> InjectedFaults { get; init; } = [];

    /// <summary>Checks one invariant over <see cref="Evidence"/>.</summary>
    public Verdict Check(string invariant) => InvariantCheckers.Check(invariant, Evidence);

    /// <summary>The run judged on every invariant (once; later reads return the same judgement).</summary>
    public Judgement Judgement => _judgement ??= Judgement.Of(Evidence);

    private Judgement? _judgement;

    /// <summary>Checks every invariant.</summary>
    public IReadOnlyList<Verdict> CheckAll() => Judgement.Verdicts;
}
