namespace AmqpConformance.Harness.Verdicts;

/// <summary>A transport fault during a run: injected by the harness, or the broker closing the connection.</summary>
/// <param name="At">When the transport failed (evidence clock).</param>
/// <param name="Description">What happened, such as "reset after 12345 bytes".</param>
/// <param name="ObservedAt">When the output first reported the fault to the writer (a flush threw or reported
/// completion); null if the writer never noticed.</param>
/// <param name="BytesWrittenAfterFault">Bytes the writer put into its output after the output had reported the fault to
/// it.</param>
public sealed record TransportFaultRecord(
    TimeSpan At,
    string Description,
    TimeSpan? ObservedAt,
    long BytesWrittenAfterFault
)
{
    /// <summary>Where the stream was cut, in bytes of the writer's output, when the fault cut it at a known
    /// point.</summary>
    public long? CutAtOutputByte { get; init; }
}
