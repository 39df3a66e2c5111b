using AmqpConformance.Properties.Running;

namespace AmqpConformance.Suites.Tests.Writers;

/// <summary>A soak test (<see cref="WriterSoakTests"/>): runs only when <c>AMQP_CONFORMANCE_SOAK</c> holds a duration
/// (the nightly job's <c>dotnet test --filter Category=Soak</c>); skipped, with the reason, in every other run.</summary>
internal sealed class SoakFactAttribute : FactAttribute
{
    /// <summary>The variable that holds the soak's duration.</summary>
    public const string Variable = "AMQP_CONFORMANCE_SOAK";

    public SoakFactAttribute()
    {
        string? value = Environment.GetEnvironmentVariable(Variable);
        if (string.IsNullOrWhiteSpace(value))
            Skip = $"a soak runs for minutes: set {Variable} to its duration (such as 10m) to run it (nightly job)";
        else if (!SoakDuration.TryParse(value, out _))
            Skip = $"{Variable}={value}: {SoakDuration.Expected}";
    }

    /// <summary>The duration <c>AMQP_CONFORMANCE_SOAK</c> names (only read when the test runs).</summary>
    public static TimeSpan Duration =>
        SoakDuration.TryParse(Environment.GetEnvironmentVariable(Variable), out var duration)
            ? duration
            : throw new InvalidOperationException($"{Variable} holds no duration");
}
