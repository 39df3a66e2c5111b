using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Clients;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties;

/// <summary>
/// A documented defect of a third-party client, accepted for now: the violations it covers are counted under
/// <see cref="Name"/> and do not fail a case; every other violation still does. <see cref="Reproduction"/> pins a
/// scenario that shows it, so a suite can tell when the upstream defect is fixed (the deviation goes stale).
/// </summary>
/// <remarks>
/// <para>A deviation covers a violation only when everything it names about the cause holds, so that the same symptom
/// from another cause is still reported: the violation's rule is one of <see cref="Rules"/>; the scenario is one
/// <see cref="AppliesTo"/> accepts (the features the cause needs: confirms on, a cancellation that races the call...);
/// the client under test is one <see cref="ClientScope"/> accepts (its version, its writer mode or another setting,
/// as its <see cref="ClientAdapter"/> reports them); and each call the violation names is one
/// <see cref="CallScope"/> accepts (where the client threw: a cancellation seen in the confirm wait, not in a
/// flush). Keep each as narrow as the cause. docs/known-client-defects.md says how to write one.</para>
/// </remarks>
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
    /// <summary>The clients that show it: their <see cref="ClientAdapter.Version"/> and
    /// <see cref="ClientAdapter.Settings"/> (a release line, a writer mode); null for any client. A client-level check
    /// drops the deviations whose scope refuses its client before the first case.</summary>
    public Func<ClientAdapter, bool>? ClientScope { get; init; }

    /// <summary>What each call a covered violation names must show (say, an exception thrown in the client's confirm
    /// wait: <see cref="CallRecord.Exception"/>); null for any call. A violation that names no call is not covered
    /// when this is set.</summary>
    public Func<CallRecord, bool>? CallScope { get; init; }

    /// <summary>Whether this deviation can cover anything in a check of <paramref name="client"/>
    /// (<see cref="ClientScope"/>).</summary>
    public bool AppliesToClient(ClientAdapter client)
    {
        ArgumentNullException.ThrowIfNull(client);
        return ClientScope?.Invoke(client) ?? true;
    }

    /// <summary>Whether this deviation covers <paramref name="violation"/> in <paramref name="scenario"/>, judging
    /// the rule and the scenario only (no <see cref="CallScope"/>: see the overload that takes the evidence).</summary>
    public bool Covers(Violation violation, Scenario scenario)
    {
        ArgumentNullException.ThrowIfNull(violation);
        return Rules.Contains(violation.Rule) && AppliesTo(scenario);
    }

    /// <summary>Whether this deviation covers <paramref name="violation"/> of a case of <paramref name="scenario"/>
    /// whose calls <paramref name="evidence"/> holds: the rule, the scenario and, when <see cref="CallScope"/> is set,
    /// every call the violation names.</summary>
    public bool Covers(Violation violation, Scenario scenario, ConformanceEvidence evidence)
    {
        ArgumentNullException.ThrowIfNull(evidence);
        if (!Covers(violation, scenario))
            return false;
        if (CallScope is null)
            return true;
        return violation.Calls.Count > 0
            && violation.Calls.All(id => evidence.Calls.FirstOrDefault(c => c.Id == id) is { } call && CallScope(call));
    }
}
