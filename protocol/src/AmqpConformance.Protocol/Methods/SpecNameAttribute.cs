namespace AmqpConformance.Protocol;

/// <summary>The spec's name for a method record's argument where it is not the property name in kebab-case (NoWait is
/// "nowait"); decode errors name arguments by it. See <see cref="AmqpMethodAttribute"/>.</summary>
/// <param name="name">The spec name.</param>
[AttributeUsage(AttributeTargets.Property, Inherited = false)]
internal sealed class SpecNameAttribute(string name) : Attribute
{
    /// <summary>The spec name.</summary>
    public string Name { get; } = name;
}
