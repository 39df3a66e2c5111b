namespace AmqpConformance.FakeBroker.Tests.Interop;

/// <summary>A theory that runs only where the amqplib client (node + npm-installed amqplib) is available.</summary>
public sealed class RequiresAmqplibTheoryAttribute : TheoryAttribute
{
    public RequiresAmqplibTheoryAttribute()
    {
        if (InteropScripts.AmqplibMissing() is { } reason)
            Skip = reason;
    }
}
