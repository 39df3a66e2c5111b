namespace AmqpConformance.Properties.Running;

/// <summary>A soak's finding: <see cref="Rule"/> (<c>soak/resource-growth</c>, <c>soak/stopped-completing</c>,
/// <c>soak/call-failed</c>) and what was seen.</summary>
/// <param name="Rule">The rule broken.</param>
/// <param name="Message">What was seen: the resource and its samples, or the calls that did not complete.</param>
public sealed record SoakViolation(string Rule, string Message)
{
    /// <inheritdoc />
    public override string ToString() => $"{Rule}: {Message}";
}
