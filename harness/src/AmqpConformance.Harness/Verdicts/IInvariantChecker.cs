namespace AmqpConformance.Harness.Verdicts;

/// <summary>Judges one invariant over a run's evidence. Checkers are stateless and thread-safe.</summary>
public interface IInvariantChecker
{
    /// <summary>The invariant's name (see <see cref="InvariantNames"/>).</summary>
    string Invariant { get; }

    /// <summary>Checks the invariant. <paramref name="wire"/> is <paramref name="evidence"/>'s frames
    /// reassembled.</summary>
    Verdict Check(ConformanceEvidence evidence, WireAssembly wire);
}
