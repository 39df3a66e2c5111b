using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties;

/// <summary>What a property check was doing with a case when <see cref="CasesInFlight"/> looked.</summary>
public enum CaseStage
{
    /// <summary>A generated case: case <see cref="CaseInFlight.Number"/> of <see cref="CaseInFlight.Of"/>.</summary>
    Generated = 1,

    /// <summary>Replaying a token (<see cref="PropertyRunOptions.Replay"/>): attempt <see cref="CaseInFlight.Number"/>
    /// of at most <see cref="CaseInFlight.Of"/>.</summary>
    Replaying = 2,

    /// <summary>Shrinking a failure: candidate <see cref="CaseInFlight.Number"/>, a smaller variant of the failing
    /// case.</summary>
    Shrinking = 3,

    /// <summary>Re-running the shrunk counterexample to report its own run: attempt
    /// <see cref="CaseInFlight.Number"/>.</summary>
    ConfirmingShrunk = 4,

    /// <summary>Re-running the failing case as it was generated, to measure how often it fails again
    /// (<see cref="PropertyRunOptions.ReproductionRuns"/>): run <see cref="CaseInFlight.Number"/> of at most
    /// <see cref="CaseInFlight.Of"/>.</summary>
    Reproducing = 5,
}

/// <summary>One case a property check ran or was running (see <see cref="CasesInFlight"/>).</summary>
/// <param name="Stage">Generated, replayed, a shrink candidate, or the shrunk counterexample re-run.</param>
/// <param name="Number">The case's number within its stage, from 1.</param>
/// <param name="Of">How many the stage runs at most (cases, replay attempts); 0 when open-ended (shrinking).</param>
/// <param name="Scenario">The scenario; its <see cref="Scenario.ToString"/> is the line failure reports print.</param>
/// <param name="Replay">The token whose replay runs this case again: the case's own for a generated or replayed case;
/// for a shrink candidate, the failing case's (its replay fails and shrinks again, through the same
/// candidates).</param>
public sealed record CaseInFlight(CaseStage Stage, int Number, int Of, Scenario Scenario, ReplayToken? Replay)
{
    /// <summary>How to replay, as the property's runner phrased it (<see cref="PropertyRunOptions.ReplayHint"/>); null
    /// when it gave none.</summary>
    public string? ReplayHint { get; init; }

    /// <summary>"case 3 of 200", "replay attempt 1 of 100", "shrink candidate 4", "the shrunk counterexample, attempt
    /// 1".</summary>
    public string Where =>
        Stage switch
        {
            CaseStage.Generated => $"case {Number} of {Of}",
            CaseStage.Replaying => $"replay attempt {Number} of {Of}",
            CaseStage.Shrinking => $"shrink candidate {Number} (shrinking a failure it found)",
            CaseStage.Reproducing => $"the failing case, re-run {Number} of {Of} (how often it fails again)",
            _ => $"the shrunk counterexample, re-run {Number}",
        };

    /// <summary>The replay line: <c>AMQP_CONFORMANCE_REPLAY=seed,gamma,size</c> and the hint, as failures print
    /// it.</summary>
    public string? ReplayLine =>
        Replay is null
            ? null
            : $"{ReplayToken.EnvironmentVariable}={Replay}" + (ReplayHint is null ? "" : $"  ({ReplayHint})");
}

/// <summary>A property check in progress in this process, with the case it is running (see
/// <see cref="CasesInFlight"/>).</summary>
/// <param name="Subject">The writer's (factory's) or client's name.</param>
/// <param name="Property">The property: an invariant's name or <see cref="ConformanceProperties.AllAtOnce"/>.</param>
/// <param name="Current">The case running now; null between cases.</param>
/// <param name="Previous">The case this check ran before it; null before its second case. A writer's work can outlive
/// its case (a loop or timer left running), so an exception from it may land in the next one.</param>
public sealed record PropertyInFlight(string Subject, string Property, CaseInFlight? Current, CaseInFlight? Previous)
{
    /// <summary>Where this property's failure report goes (<see cref="PropertyRunOptions.ReportFolder"/>); null when
    /// nowhere.</summary>
    public string? ReportFolder { get; init; }

    /// <summary>Whether the check had already ended when this was taken (<see cref="CasesInFlight.Snapshot"/> keeps the
    /// last one that ended, because work a writer left behind can outlive the check).</summary>
    public bool Ended { get; init; }
}
