namespace AmqpConformance.Cli;

/// <summary>One property of one writer as a run (<see cref="RunReport"/>) or a merge of shards
/// (<see cref="MergedVerdict"/>) reports it: the one model its verdict table cell, its failure report on the console
/// and its JUnit test case (<see cref="JUnitReport"/>) are written from, so they cannot disagree.</summary>
/// <param name="Writer">The writer's name (<c>Background</c>, <c>Zoo:LifoQueue</c>).</param>
/// <param name="Property">The property's name (<c>order</c>, or <c>all</c>).</param>
internal sealed record PropertyVerdict(string Writer, string Property)
{
    /// <summary>The cases it ran: every case when it held; up to and including the failing one when it failed, as a
    /// run in one process counts them; 0 when it did not run.</summary>
    public int Cases { get; init; }

    /// <summary>How long its check took, in seconds, when known (a merge adds up its shards' times).</summary>
    public double? Seconds { get; init; }

    /// <summary>Why it did not run, or not everywhere: <c>not run</c>, <c>interrupted</c>, <c>ran in 1 of 3
    /// shards</c>; null when it ran.</summary>
    public string? NotRun { get; init; }

    /// <summary>The failure in one line, as the verdict table shows it after VIOLATED (<c>after 3 case(s): order</c>);
    /// null when it held.</summary>
    public string? Finding { get; init; }

    /// <summary>The failure as the console prints it under the tables: the violations, the counterexample and the
    /// replay line; null when it held.</summary>
    public string? Report { get; init; }

    /// <summary>Whether it failed (anywhere, for a merge).</summary>
    public bool Failed => Finding is not null;
}
