namespace AmqpConformance.Harness.Verdicts;

/// <summary>Memory held by a writer while its transport was stalled.</summary>
/// <param name="PeakBytesHeld">The most bytes seen held at once: pooled rentals outstanding plus bytes buffered in the output and not yet consumed.</param>
/// <param name="BoundBytes">What a writer with bounded buffering may hold under the run's queue capacity, output threshold and largest command.</param>
/// <param name="Explanation">How the bound was computed, for the report.</param>
public sealed record BackpressureSample(long PeakBytesHeld, long BoundBytes, string Explanation);
