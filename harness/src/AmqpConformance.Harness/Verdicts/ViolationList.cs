namespace AmqpConformance.Harness.Verdicts;

/// <summary>Collects violations of one invariant; the checkers' shared helper.</summary>
internal sealed class ViolationList(string invariant)
{
    private readonly List<Violation> _items = [];

    public void Add(string rule, string message, IEnumerable<long>? frames = null, IEnumerable<int>? calls = null) =>
        _items.Add(
            new Violation(invariant, rule, message, frames is null ? [] : [.. frames], calls is null ? [] : [.. calls])
        );

    public Verdict ToVerdict() => new(invariant, [.. _items]);
}
