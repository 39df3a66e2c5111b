namespace AmqpConformance.Harness.Verdicts;

/// <summary>
/// One run judged: its commands assembled from the wire once (<see cref="WireAssembly"/>) and every invariant's checker
/// run over them (<see cref="InvariantCheckers.All"/>). The one judging path: properties, run results, the CLI and the
/// reports (the timeline highlights from <see cref="Wire"/>) all judge through <see cref="Of"/>, so what a report shows
/// is what was judged. After judging, violations that an earlier failed or cancelled call on the same channel may
/// explain get a <see cref="Violation.Cause"/> (a hint, not a verdict).
/// </summary>
/// <param name="Evidence">The run.</param>
/// <param name="Wire">The commands and frames on the wire, assembled once.</param>
/// <param name="Verdicts">One verdict per invariant, in <see cref="InvariantNames.All"/> order.</param>
public sealed record Judgement(ConformanceEvidence Evidence, WireAssembly Wire, IReadOnlyList<Verdict> Verdicts)
{
    /// <summary>Judges <paramref name="evidence"/> on every invariant.</summary>
    public static Judgement Of(ConformanceEvidence evidence)
    {
        ArgumentNullException.ThrowIfNull(evidence);
        var wire = WireAssembly.From(evidence);
        IReadOnlyList<Verdict> verdicts = [.. InvariantCheckers.All.Select(c => c.Check(evidence, wire))];
        return new Judgement(evidence, wire, Diagnoses.Attach(evidence, wire, verdicts));
    }

    /// <summary>Every violation of every invariant, in <see cref="InvariantNames.All"/> order.</summary>
    public IEnumerable<Violation> Violations => Verdicts.SelectMany(v => v.Violations);

    /// <summary>Every violation under one name: how a property judges a case (the property's invariant biases what it
    /// generates; a case fails it on any invariant).</summary>
    public Verdict Combined(string invariant) => new(invariant, [.. Violations]);
}
