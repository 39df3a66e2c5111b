using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties;

/// <summary>
/// A documented defect of a third-party client, accepted for now: the violations it covers (those whose rule is one of
/// <see cref="Rules"/>, in scenarios <see cref="AppliesTo"/> accepts) are counted under <see cref="Name"/> and do not
/// fail a case; every other violation still does. <see cref="Reproduction"/> pins a scenario that shows it, so a suite
/// can tell when the upstream defect is fixed (the deviation goes stale).
/// </summary>
/// <param name="Name">A short stable name; outcomes count covered violations under it.</param>
/// <param name="Reason">Why it is accepted: the cause, the upstream issue, how to replay it.</param>
/// <param name="Rules">The violation rules (<see cref="Violation.Rule"/>) of its symptom; keep the list as short as the
/// symptom.</param>
/// <param name="AppliesTo">The scenarios that can show it; keep it as narrow as the cause.</param>
/// <param name="Reproduction">A scenario that shows it (run a few times where the symptom depends on timing); null when
/// none is pinned.</param>
public sealed record KnownDeviation(
    string Name,
    string Reason,
    IReadOnlyList<string> Rules,
    Func<Scenario, bool> AppliesTo,
    Scenario? Reproduction = null
)
{
    /// <summary>Whether this deviation covers <paramref name="violation"/> in <paramref name="scenario"/>.</summary>
    public bool Covers(Violation violation, Scenario scenario)
    {
        ArgumentNullException.ThrowIfNull(violation);
        return Rules.Contains(violation.Rule) && AppliesTo(scenario);
    }
}
