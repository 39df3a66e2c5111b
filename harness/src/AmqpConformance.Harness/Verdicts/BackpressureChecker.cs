namespace AmqpConformance.Harness.Verdicts;

/// <summary>Backpressure: while the transport was stalled, the memory the writer held (pooled rentals plus output buffered but
/// not consumed) stayed within the bound a writer with bounded buffering can reach; callers were made to wait or fail.</summary>
/// <remarks>Holds trivially for runs that did not stall the transport (<see cref="ConformanceEvidence.Backpressure"/> is null).</remarks>
public sealed class BackpressureChecker : IInvariantChecker
{
    /// <inheritdoc />
    public string Invariant => InvariantNames.Backpressure;

    /// <inheritdoc />
    public Verdict Check(ConformanceEvidence evidence, WireAssembly wire)
    {
        ArgumentNullException.ThrowIfNull(evidence);
        ArgumentNullException.ThrowIfNull(wire);
        var v = new ViolationList(Invariant);
        if (evidence.Backpressure is { } b && b.PeakBytesHeld > b.BoundBytes)
            v.Add("unbounded-buffering", $"With the transport stalled the writer held {b.PeakBytesHeld} bytes, over the bound of {b.BoundBytes} ({b.Explanation}).");
        return v.ToVerdict();
    }
}
