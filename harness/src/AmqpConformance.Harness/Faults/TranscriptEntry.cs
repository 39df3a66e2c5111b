namespace AmqpConformance.Harness.Faults;

/// <summary>One thing a fault pump did. Every field is a function of the plan and the bytes written (never
/// of wall-clock time), so two runs of the same plan over the same writes give equal entries.</summary>
/// <param name="Direction">The stream it happened on.</param>
/// <param name="Kind">What happened.</param>
/// <param name="Offset">Position in the direction's input stream where it happened.</param>
/// <param name="Length">Bytes concerned (delivered or dropped); 0 for point events.</param>
/// <param name="Delay">The delay the plan assigned to it (latency + jitter, bandwidth cost, slice gap,
/// stall or close delay); what was actually slept in real mode may be longer.</param>
/// <param name="Detail">A short human note, such as the fault that caused a reset.</param>
public sealed record TranscriptEntry(
    FaultDirection Direction,
    TranscriptEventKind Kind,
    long Offset,
    long Length,
    TimeSpan Delay,
    string? Detail = null
);
