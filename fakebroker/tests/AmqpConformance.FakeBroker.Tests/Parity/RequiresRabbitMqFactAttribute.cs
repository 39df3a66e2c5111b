namespace AmqpConformance.FakeBroker.Tests.Parity;

/// <summary>A fact that runs only when a real RabbitMQ answers a TCP connect (see
/// <see cref="RealRabbitMq"/>).</summary>
public sealed class RequiresRabbitMqFactAttribute : FactAttribute
{
    public RequiresRabbitMqFactAttribute()
    {
        if (RealRabbitMq.Missing() is { } reason)
            Skip = reason;
    }
}
