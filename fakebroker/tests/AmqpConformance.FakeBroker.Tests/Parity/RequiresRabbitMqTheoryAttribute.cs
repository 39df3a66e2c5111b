namespace AmqpConformance.FakeBroker.Tests.Parity;

/// <summary>A theory that runs only when a real RabbitMQ answers a TCP connect (see
/// <see cref="RealRabbitMq"/>).</summary>
public sealed class RequiresRabbitMqTheoryAttribute : TheoryAttribute
{
    public RequiresRabbitMqTheoryAttribute()
    {
        if (RealRabbitMq.Missing() is { } reason)
            Skip = reason;
    }
}
