namespace AmqpConformance.Harness.Verdicts;

/// <summary>What every checker of <see cref="InvariantCheckers.All"/> shares: the invariant's name, the checks of its
/// arguments, and one <see cref="Verdict"/> of all the violations it finds. A checker says only what it judges. The
/// checkers are made here alone; another assembly implements <see cref="IInvariantChecker"/>.</summary>
public abstract class InvariantChecker : IInvariantChecker
{
    private protected InvariantChecker(string invariant) => Invariant = invariant;

    /// <inheritdoc />
    public string Invariant { get; }

    /// <inheritdoc />
    public Verdict Check(ConformanceEvidence evidence, WireAssembly wire)
    {
        ArgumentNullException.ThrowIfNull(evidence);
        ArgumentNullException.ThrowIfNull(wire);
        var violations = new ViolationList(Invariant);
        Judge(evidence, wire, violations);
        return violations.ToVerdict();
    }

    /// <summary>Adds to <paramref name="v"/> every violation of the invariant that <paramref name="evidence"/> and
    /// <paramref name="wire"/> (its frames reassembled) show.</summary>
    private protected abstract void Judge(ConformanceEvidence evidence, WireAssembly wire, ViolationList v);
}
