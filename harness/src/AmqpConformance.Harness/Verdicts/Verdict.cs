namespace AmqpConformance.Harness.Verdicts;

/// <summary>The outcome of checking one invariant against one piece of evidence.</summary>
/// <param name="Invariant">The invariant's name (see <see cref="InvariantNames"/>).</param>
/// <param name="Violations">Every breach found; empty when the invariant holds.</param>
public sealed record Verdict(string Invariant, IReadOnlyList<Violation> Violations)
{
    /// <summary>True when no violation was found.</summary>
    public bool Holds => Violations.Count == 0;

    /// <summary>A verdict that holds.</summary>
    public static Verdict Pass(string invariant) => new(invariant, []);

    /// <inheritdoc />
    public override string ToString() =>
        Holds
            ? $"{Invariant}: holds"
            : $"{Invariant}: {Violations.Count} violation(s)\n  "
                + string.Join("\n  ", Violations.Take(10))
                + (Violations.Count > 10 ? $"\n  ... and {Violations.Count - 10} more" : "");
}
