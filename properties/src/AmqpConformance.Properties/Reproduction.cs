namespace AmqpConformance.Properties;

/// <summary>How often a failing case failed again when it was re-run right after it was found
/// (<see cref="PropertyRunOptions.ReproductionRuns"/>): the case its replay token names, run as it was generated, and
/// counted as failing again when it breaks one of the rules it first broke. A case that failed again every time replays
/// at once; one that did not depends on timing, and its replay may need many attempts or not come back.</summary>
/// <param name="Failed">How many of the re-runs failed again.</param>
/// <param name="Runs">How many re-runs there were (at most <see cref="PropertyRunOptions.ReproductionRuns"/>, fewer
/// when <see cref="PropertyRunOptions.ReproductionBudget"/> ran out).</param>
public sealed record Reproduction(int Failed, int Runs)
{
    /// <summary>Whether every re-run failed again.</summary>
    public bool EveryTime => Failed == Runs;

    /// <summary>The sentence a failure report prints.</summary>
    public override string ToString() =>
        EveryTime
            ? $"Re-run {Runs} time(s) when found, the case failed again every time."
            : $"Re-run {Runs} time(s) when found, the case failed again {Failed} time(s): the failure depends on timing, so "
                + "its replay may need many attempts, or not come back.";
}
