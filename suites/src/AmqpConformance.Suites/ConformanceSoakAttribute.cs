using AmqpConformance.Properties.Running;
using Xunit;

namespace AmqpConformance.Suites;

/// <summary>
/// Marks the suite's soak test (<see cref="FrameWriterConformanceSuite.Soak"/>): a <see cref="FactAttribute"/> that runs
/// only when <c>AMQP_CONFORMANCE_SOAK</c> holds a duration (such as <c>10m</c>; the nightly job's <c>dotnet test
/// --filter Category=Soak</c>) and is skipped, with the reason, in every other run, so the default gate is unaffected.
/// </summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class ConformanceSoakAttribute : FactAttribute
{
    /// <summary>The variable that holds the soak's duration.</summary>
    public const string Variable = "AMQP_CONFORMANCE_SOAK";

#if XUNIT_V3
    /// <summary>Marks the soak test; xunit v3 records where it is declared (the compiler fills both in).</summary>
    /// <param name="sourceFilePath">The file that declares the test.</param>
    /// <param name="sourceLineNumber">The line that declares it.</param>
    public ConformanceSoakAttribute(
        [System.Runtime.CompilerServices.CallerFilePath] string? sourceFilePath = null,
        [System.Runtime.CompilerServices.CallerLineNumber] int sourceLineNumber = -1
    )
        : base(sourceFilePath, sourceLineNumber) => Skip = SkipReason();
#else
    /// <summary>Marks the soak test.</summary>
    public ConformanceSoakAttribute() => Skip = SkipReason();
#endif

    /// <summary>The duration <c>AMQP_CONFORMANCE_SOAK</c> names.</summary>
    /// <exception cref="InvalidOperationException">The variable holds no duration (the test is skipped
    /// then).</exception>
    public static TimeSpan Duration =>
        SoakDuration.TryParse(Environment.GetEnvironmentVariable(Variable), out var duration)
            ? duration
            : throw new InvalidOperationException($"{Variable} holds no duration");

    private static string? SkipReason()
    {
        string? value = Environment.GetEnvironmentVariable(Variable);
        if (string.IsNullOrWhiteSpace(value))
            return $"a soak runs for minutes: set {Variable} to its duration (such as 10m) to run it (nightly job)";
        return SoakDuration.TryParse(value, out _) ? null : $"{Variable}={value}: {SoakDuration.Expected}";
    }
}
