namespace AmqpConformance.Harness.Verdicts;

/// <summary>A transport fault the harness injected during a run.</summary>
/// <param name="At">When the transport failed (frame log clock).</param>
/// <param name="Description">What was injected, such as "reset after 12345 bytes".</param>
/// <param name="ObservedAt">When the output first reported the fault to the writer (a flush threw or reported completion); null if the writer never noticed.</param>
/// <param name="BytesWrittenAfterFault">Bytes the writer put into its output after the output had reported the fault to it.</param>
public sealed record TransportFaultRecord(TimeSpan At, string Description, TimeSpan? ObservedAt, long BytesWrittenAfterFault);
