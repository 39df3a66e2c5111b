namespace AmqpConformance.FakeBroker.Tests.Interop;

/// <summary>A theory that runs only where Debian's python3 can import pika.</summary>
public sealed class RequiresPikaTheoryAttribute : TheoryAttribute
{
    public RequiresPikaTheoryAttribute()
    {
        if (InteropScripts.PikaMissing() is { } reason)
            Skip = reason;
    }
}
