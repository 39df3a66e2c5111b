using System.Reflection;
using AmqpConformance.Harness.Reports;
using AmqpConformance.Properties;
#if XUNIT_V3
using Xunit; // xunit v3: ITestOutputHelper
#else
using Xunit.Abstractions;
#endif

namespace AmqpConformance.Suites;

/// <summary>What the suites share: resolve the run options for a property test, report its outcome to the test output,
/// write the artifacts of a failure and fail the test with a message anyone can act on.</summary>
internal static class PropertyVerification
{
    /// <summary>The options for <paramref name="invariant"/>'s property run by <paramref name="testMethod"/> of
    /// <paramref name="suite"/>, with the report folder and replay hint a crash report uses
    /// (<see cref="CasesInFlight"/>).</summary>
    public static PropertyRunOptions OptionsFor(object suite, string testMethod, string invariant, int defaultCases)
    {
        // A property of this suite is starting: its reports from an earlier run go (once per process; see
        // StaleReports).
        StaleReports.ClearOnce(suite.GetType().Name);
        var attribute = suite
            .GetType()
            .GetMethod(testMethod, BindingFlags.Public | BindingFlags.Instance)
            ?.GetCustomAttribute<ConformancePropertyAttribute>();
        var options = PropertyRunOptions.FromEnvironment(
            attribute is { MaxTest: > 0 } ? attribute.MaxTest : defaultCases
        );
        if (options.Replay is null && !string.IsNullOrWhiteSpace(attribute?.Replay))
            options = options with { Replay = ReplayToken.Parse(attribute.Replay) };
        string suiteName = suite.GetType().Name;
        return options with
        {
            ReportFolder = ConformanceArtifacts.FolderFor(suiteName, invariant),
            ReplayHint = _ => Hint(suiteName, testMethod),
        };
    }

    /// <summary>Prints <paramref name="outcome"/> to <paramref name="output"/>; a failure also gets its artifacts, in
    /// the folder and with the replay hint <paramref name="options"/> name (<see cref="OptionsFor"/>), and fails the
    /// test with the report.</summary>
    public static void Report(PropertyOutcome outcome, PropertyRunOptions options, ITestOutputHelper? output)
    {
        if (outcome.Holds)
        {
            output?.WriteLine(outcome.Describe());
            output?.WriteLine("Events: " + outcome.Events);
            return;
        }
        var written = OutcomeArtifacts.Write(outcome, options);
        string message = written.Describe(OutcomeArtifacts.ReplayHintFor(outcome, options));
        output?.WriteLine(message);
        throw new ConformanceViolationException(message);
    }

    private static string Hint(string suiteName, string testMethod) =>
        $"paste before: dotnet test --filter \"FullyQualifiedName~{suiteName}.{testMethod}\"";
}
