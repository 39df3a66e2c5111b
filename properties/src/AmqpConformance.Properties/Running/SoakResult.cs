namespace AmqpConformance.Properties.Running;

/// <summary>The outcome of a soak (<see cref="SoakRunner"/>).</summary>
/// <param name="Writer">The writer's name.</param>
/// <param name="Options">How the soak ran.</param>
/// <param name="Samples">The idle-time samples kept (<see cref="SoakOptions.MaxSamples"/>).</param>
/// <param name="Violations">What the soak found; empty when the writer holds.</param>
/// <param name="Rounds">Rounds run.</param>
/// <param name="Calls">Calls completed.</param>
/// <param name="Elapsed">Real time the soak took.</param>
public sealed record SoakResult(
    string Writer,
    SoakOptions Options,
    IReadOnlyList<SoakSample> Samples,
    IReadOnlyList<SoakViolation> Violations,
    int Rounds,
    long Calls,
    TimeSpan Elapsed
)
{
    /// <summary>Whether the writer held: no violation.</summary>
    public bool Holds => Violations.Count == 0;
}
