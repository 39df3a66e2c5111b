using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties;

/// <summary>
/// A documented deviation of a third-party client that shows only in some scenarios and whose symptom is not one stable rule
/// (for example, stray bytes taken from a rented array, which parse as whatever frame the stale contents happen to form).
/// Cases whose scenario <see cref="AppliesTo"/> are counted under <see cref="Name"/> and not judged; every other case is.
/// </summary>
/// <param name="Name">A short stable name; the outcome counts accepted cases under it.</param>
/// <param name="Reason">Why it is accepted: the upstream issue, the cause, a replay.</param>
/// <param name="AppliesTo">Which scenarios it covers; keep it as narrow as the cause.</param>
public sealed record ScenarioDeviation(string Name, string Reason, Func<Scenario, bool> AppliesTo);
