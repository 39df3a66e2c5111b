namespace AmqpConformance.Harness.Verdicts;

/// <summary>What a writer held while its output was stalled.</summary>
/// <param name="PeakBytesHeld">The most bytes seen held at once: pooled rentals outstanding plus bytes buffered in the
/// output and not yet consumed.</param>
/// <param name="BoundBytes">What a writer with bounded buffering may hold under the run's queue capacity, output
/// threshold and largest command.</param>
/// <param name="Explanation">How the bound was computed, for the report.</param>
public sealed record BackpressureSample(long PeakBytesHeld, long BoundBytes, string Explanation)
{
    /// <summary>The most calls seen completed successfully at once whose bytes had not been flushed.</summary>
    public int PeakAcceptedUnflushed { get; init; }

    /// <summary>How many such calls the writer may hold: its declared queue capacity plus the one in hand; null when
    /// not judged.</summary>
    public int? AcceptedBound { get; init; }

    /// <summary>The calls that were accepted beyond <see cref="AcceptedBound"/> at the peak.</summary>
    public IReadOnlyList<int> AcceptedCalls { get; init; } = [];
}
