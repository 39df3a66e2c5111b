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

    /// <summary>Which connection of the case (0-based) <see cref="Evidence"/> and <see cref="Log"/> are from: 0 for a
    /// case on one connection; for a case on several (<see cref="Scenario.Connections"/>), the first whose judgement
    /// has a violation, or 0 when every one holds.</summary>
    public int Connection { get; init; }

    /// <summary>What that connection ran (<see cref="Scenario.ForConnection"/>): its own seed and frame_max; the same as
    /// <see cref="Scenario"/> for connection 0.</summary>
    public Scenario ConnectionScenario
    {
        get => _connectionScenario ?? Scenario;
        init => _connectionScenario = value;
    }

    private readonly Scenario? _connectionScenario;

    /// <summary>The case's other connections' results, each with its own evidence, judgement and frame log; empty for a
    /// case on one connection.</summary>
    public IReadOnlyList<RunResult> OtherConnections { get; init; } = [];

    /// <summary>Checks one invariant over <see cref="Evidence"/>.</summary>
    public Verdict Check(string invariant) => InvariantCheckers.Check(invariant, Evidence);

    /// <summary>The run judged on every invariant (once; later reads return the same judgement).</summary>
    public Judgement Judgement => _judgement ??= Judgement.Of(Evidence);

    private Judgement? _judgement;

    /// <summary>Checks every invariant.</summary>
    public IReadOnlyList<Verdict> CheckAll() => Judgement.Verdicts;
}
