namespace AmqpConformance.Protocol;

/// <summary>A <c>string</c> argument of a method record that travels as a longstr (a string argument is a shortstr
/// otherwise). See <see cref="AmqpMethodAttribute"/>.</summary>
[AttributeUsage(AttributeTargets.Property, Inherited = false)]
internal sealed class LongStringAttribute : Attribute { }
