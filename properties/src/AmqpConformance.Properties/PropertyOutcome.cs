using System.Text;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties;

/// <summary>The result of checking one invariant property against one writer (or client).</summary>
/// <param name="Invariant">The invariant (see <see cref="InvariantNames"/>).</param>
/// <param name="Subject">The writer's or client's name.</param>
/// <param name="CasesRun">Cases generated and run before the property failed or passed (the failing case
/// included).</param>
/// <param name="Shrinks">Shrinking steps that kept the failure.</param>
/// <param name="Counterexample">The shrunk failing scenario; null when the property held.</param>
/// <param name="Verdict">The verdict on the counterexample's run; null when the property held.</param>
/// <param name="Run">The counterexample's run (frame log, timeline, ledger); null when the property held.</param>
/// <param name="Replay">The replay token of the failing case; null when the property held.</param>
/// <param name="Elapsed">Wall time of the whole check, shrinking included.</param>
public sealed record PropertyOutcome(
    string Invariant,
    string Subject,
    int CasesRun,
    int Shrinks,
    Scenario? Counterexample,
    Verdict? Verdict,
    RunResult? Run,
    ReplayToken? Replay,
    TimeSpan Elapsed
)
{
    /// <summary>Where a counterexample's notation (<c>cancel:flushN</c>, <c>@a+b</c>, <c>opaque</c>, the script
    /// steps...) is explained.</summary>
    public const string NotationReference = "AmqpConformance docs/invariants.md, \"Reading a counterexample\"";

    /// <summary>True when no case violated the invariant.</summary>
    public bool Holds => Counterexample is null;

    /// <summary>Where the failure's artifacts (frames.jsonl, wire.pcap, timeline.html) were written, when they
    /// were.</summary>
    public string? ArtifactFolder { get; init; }

    /// <summary>Whether <see cref="PropertyRunOptions.Cancellation"/> stopped the check before all its cases ran; a
    /// "holds" then covers only the cases that ran.</summary>
    public bool Interrupted { get; init; }

    /// <summary>The events the generated cases produced (shrinking runs not counted).</summary>
    public RunEvents Events { get; init; } = new();

    /// <summary>Wall time from the start of the check to the end of its first failing case (before shrinking); null
    /// when no case failed.</summary>
    public TimeSpan? FirstFailureAfter { get; init; }

    /// <summary>Set when this failure was not shrunk because another property had already shrunk a failure of the same
    /// writer in this process (<see cref="PropertyRunOptions.ShrinkOncePerWriter"/>): that property and its shrunk
    /// counterexample.</summary>
    public string? ShrunkElsewhere { get; init; }

    /// <summary>The run's seed, when the check had one: <see cref="PropertyRunOptions.Seed"/>, or the seed a check on
    /// several workers drew without one (<see cref="PropertyRunOptions.Parallel"/>; <c>AMQP_CONFORMANCE_SEED</c> set to
    /// it generates the same cases again, on one worker or many). Null for a replay and for a check on one worker
    /// without a seed.</summary>
    public ulong? Seed { get; init; }

    /// <summary>How many workers judged the cases at once (<see cref="PropertyRunOptions.Parallel"/>); 1 when they ran
    /// one at a time.</summary>
    public int Workers { get; init; } = 1;

    /// <summary>For a replay: on which attempt the replayed case failed again (null when it did not fail, or this is
    /// not a replay).</summary>
    public int? ReplayAttemptsNeeded { get; init; }

    /// <summary>For a replay whose case did not fail again: how many times it ran (up to
    /// <see cref="PropertyRunOptions.ReplayAttempts"/>, within <see cref="PropertyRunOptions.ReplayBudget"/>); null when
    /// this is not a replay or the case failed again.</summary>
    public int? ReplayAttemptsWithoutFailure { get; init; }

    /// <summary>How often the failing case failed again when re-run right after it was found
    /// (<see cref="PropertyRunOptions.ReproductionRuns"/>); null when it held, was not measured (a scripted case, a case
    /// that hung, a replay) or this is a losing worker's.</summary>
    public Reproduction? Reproduced { get; init; }

    /// <summary>The invariants the counterexample violated (the property is named after the one its generation is
    /// biased to; every case is judged on all of them).</summary>
    public IReadOnlyList<string> ViolatedInvariants =>
        Verdict is null ? [] : [.. Verdict.Violations.Select(v => v.Invariant).Distinct()];

    /// <summary>How many violations each accepted known deviation (<see cref="PropertyRunOptions.KnownDeviations"/>)
    /// covered, by name.</summary>
    public IReadOnlyDictionary<string, int> KnownDeviationsSeen { get; init; } = new Dictionary<string, int>();

    /// <summary>A failure message anyone can act on: the invariant, the shrunk scenario, the violations, the replay
    /// line, the artifacts.</summary>
    public string Describe(string? replayHint = null)
    {
        string known =
            KnownDeviationsSeen.Count == 0
                ? ""
                : " Known deviations accepted: "
                    + string.Join(", ", KnownDeviationsSeen.Select(k => $"{k.Key} x{k.Value}"))
                    + ".";
        if (Holds && ReplayAttemptsWithoutFailure is { } tried)
            return $"{Subject} / {Invariant}: the replayed case did not fail again in {tried} attempt(s) "
                + $"({Elapsed.TotalSeconds:0.0} s): its failure depends on timing. Replay it again, or run the property "
                + $"without {ReplayToken.EnvironmentVariable} to find a fresh case.{known}";
        string workers = Workers > 1 ? $" on {Workers} workers, seed {Seed}" : "";
        if (Holds)
            return $"{Subject} / {Invariant}: holds over {CasesRun} cases ({Elapsed.TotalSeconds:0.0} s{workers}).{known}";
        var sb = new StringBuilder();
        string which = ViolatedInvariants.Count == 0 ? Invariant : string.Join(", ", ViolatedInvariants);
        sb.AppendLine(
            $"{Subject} violates {which} (property \"{Invariant}\": found after {CasesRun} case(s), shrunk {Shrinks} time(s){workers})."
        );
        sb.AppendLine($"Counterexample: {Counterexample}");
        sb.AppendLine($"  (notation: {NotationReference})");
        if (ShrunkElsewhere is not null)
            sb.AppendLine($"Not shrunk: this writer's failure was already shrunk by property {ShrunkElsewhere}.");
        if (Verdict is not null)
        {
            sb.AppendLine(
                Run is { Scenario.Connections: > 1 } run
                    ? $"Violations, on connection {run.Connection + 1} of {run.Scenario.Connections} (its own seed={run.ConnectionScenario.Seed}, frame_max={run.ConnectionScenario.FrameMax}; the artifacts are its frames):"
                    : "Violations:"
            );
            string? lastCause = null;
            foreach (var v in Verdict.Violations.Take(10))
            {
                // One diagnosis often explains several violations in a row (a torn frame breaks its end octet, its body
                // and the broker's read of it): say it once.
                sb.AppendLine(
                    $"  - {(v.Cause is not null && v.Cause == lastCause ? v with { Cause = "as above." } : v)}"
                );
                lastCause = v.Cause;
            }
            if (Verdict.Violations.Count > 10)
                sb.AppendLine($"  ... and {Verdict.Violations.Count - 10} more");
        }
        else
            sb.AppendLine(
                "The shrunk case did not fail again when re-run (the failure depends on timing); the replay line reproduces its generation."
            );
        if (Replay is not null)
            sb.AppendLine(
                $"Replay: {ReplayToken.EnvironmentVariable}={Replay}" + (replayHint is null ? "" : $"  ({replayHint})")
            );
        if (Reproduced is not null)
            sb.AppendLine(Reproduced.ToString());
        if (ReplayAttemptsNeeded is { } attempt)
            sb.AppendLine(
                attempt == 1
                    ? "This run was a replay: the case failed again on its first attempt."
                    : $"This run was a replay: the case failed again on attempt {attempt} (it depends on timing; a replay runs it until it fails, up to {PropertyRunOptions.DefaultReplayAttempts} times within {PropertyRunOptions.DefaultReplayBudget.TotalSeconds:0} s by default)."
            );
        if (ArtifactFolder is not null)
            sb.AppendLine($"Artifacts: {ArtifactFolder} (frames.jsonl, wire.pcap, timeline.html)");
        return sb.ToString().TrimEnd();
    }
}
