namespace AmqpConformance.Harness.Verdicts;

/// <summary>Something the per-channel reassembly could not fit into a command.</summary>
/// <param name="Rule">"method-during-content" (a new method on a channel whose content was unfinished),
/// "orphan-header", "orphan-body", "body-exceeds-declared" or "header-not-basic".</param>
/// <param name="Sequence">The offending frame.</param>
/// <param name="Channel">Its channel.</param>
/// <param name="InterruptedCall">For "method-during-content": the call whose content was cut short, if known.</param>
public sealed record AssemblyAnomaly(string Rule, long Sequence, ushort Channel, int? InterruptedCall);
