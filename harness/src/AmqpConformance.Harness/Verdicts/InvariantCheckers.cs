namespace AmqpConformance.Harness.Verdicts;

/// <summary>The checker for each invariant, and a way to run them all over one run's evidence.</summary>
public static class InvariantCheckers
{
    /// <summary>One checker per name in <see cref="InvariantNames.All"/>, in the same order.</summary>
    public static IReadOnlyList<IInvariantChecker> All { get; } =
    [
        new WireFormatChecker(),
        new CommandShapeChecker(),
        new NoInterleavingChecker(),
        new OrderChecker(),
        new BodiesChecker(),
        new PoolsChecker(),
        new FaultsChecker(),
        new CancellationChecker(),
        new BackpressureChecker(),
        new VisibilityChecker(),
        new LifecycleChecker(),
        new BrokerChecker(),
    ];

    /// <summary>The checker for <paramref name="invariant"/>.</summary>
    /// <exception cref="ArgumentException">No invariant has that name.</exception>
    public static IInvariantChecker For(string invariant) =>
        All.FirstOrDefault(c => c.Invariant == invariant)
        ?? throw new ArgumentException(
            $"Unknown invariant \"{invariant}\"; known: {string.Join(", ", InvariantNames.All)}.",
            nameof(invariant)
        );

    /// <summary>Checks every invariant; one verdict each, in <see cref="InvariantNames.All"/> order
    /// (<see cref="Judgement.Of"/>).</summary>
    public static IReadOnlyList<Verdict> CheckAll(ConformanceEvidence evidence) => Judgement.Of(evidence).Verdicts;

    /// <summary>Checks one invariant.</summary>
    public static Verdict Check(string invariant, ConformanceEvidence evidence) =>
        For(invariant).Check(evidence, WireAssembly.From(evidence));
}
