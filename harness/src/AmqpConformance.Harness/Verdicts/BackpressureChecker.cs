namespace AmqpConformance.Harness.Verdicts;

/// <summary>Backpressure: while the output was stalled, the writer completed at most its declared queue capacity plus
/// one call without their bytes being flushed, and the memory it held (pooled rentals plus output buffered but not
/// consumed) stayed within the bound a writer with that capacity can reach; further callers were made to wait or
/// fail.</summary>
/// <remarks>Holds trivially for runs that did not stall the output (<see cref="ConformanceEvidence.Backpressure"/> is
/// null).</remarks>
public sealed class BackpressureChecker() : InvariantChecker(InvariantNames.Backpressure)
{
    private protected override void Judge(ConformanceEvidence evidence, WireAssembly wire, ViolationList v)
    {
        if (evidence.Backpressure is not { } b)
            return;
        if (b.AcceptedBound is { } bound && b.PeakAcceptedUnflushed > bound)
            v.Add(
                "accepted-beyond-capacity",
                $"With the output stalled the writer completed {b.PeakAcceptedUnflushed} calls whose bytes were not flushed, "
                    + $"more than its queue capacity allows ({bound}: WriterContext.QueueCapacity + the one in hand): its queue is not bounded by the capacity it was given.",
                null,
                b.AcceptedCalls
            );
        if (b.PeakBytesHeld > b.BoundBytes)
            v.Add(
                "unbounded-buffering",
                $"With the output stalled the writer held {b.PeakBytesHeld} bytes, over the bound of {b.BoundBytes} ({b.Explanation})."
            );
    }
}
