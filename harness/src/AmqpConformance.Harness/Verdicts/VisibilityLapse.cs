namespace AmqpConformance.Harness.Verdicts;

/// <summary>A moment when calls that had completed successfully still had bytes the writer had not flushed, after the
/// writer had sat idle (not touching its output) for <paramref name="Bound"/> with nothing else happening.</summary>
/// <param name="At">When the harness gave up waiting (evidence clock).</param>
/// <param name="Bound">How long the writer sat idle before the harness gave up waiting.</param>
/// <param name="Calls">The calls whose bytes were not (all) flushed.</param>
/// <param name="Point">Where in the run the check was made, such as "before call 7" or "after the last call".</param>
public sealed record VisibilityLapse(TimeSpan At, TimeSpan Bound, IReadOnlyList<int> Calls, string Point);
