using AmqpConformance.Harness.Reports;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties;
using AmqpConformance.SelfTest;

namespace AmqpConformance.Suites.XunitV3.Tests;

/// <summary>What a failing xunit v3 suite gives its user: the same report as the xunit 2 package (invariant, shrunk
/// scenario, replay line, a --filter hint, artifacts), thrown from the test method.</summary>
public sealed class FailureReportTests
{
    private sealed class DoubleReturnSuite : FrameWriterConformanceSuite
    {
        protected override FrameWriterFactory Factory => BrokenWriterModes.DoubleReturn;
    }

    [Fact]
    public void A_failing_property_throws_a_report_with_replay_and_writes_the_artifacts()
    {
        var error = Assert.Throws<ConformanceViolationException>(new DoubleReturnSuite().Pools);
        Assert.Contains("property \"pools\"", error.Message, StringComparison.Ordinal);
        Assert.Contains("double-return", error.Message, StringComparison.Ordinal);
        Assert.Contains(ReplayToken.EnvironmentVariable + "=", error.Message, StringComparison.Ordinal);
        Assert.Contains("FullyQualifiedName~DoubleReturnSuite.Pools", error.Message, StringComparison.Ordinal);
        string folder = ConformanceArtifacts.FolderFor(nameof(DoubleReturnSuite), InvariantNames.Pools);
        Assert.True(new FileInfo(Path.Combine(folder, "summary.txt")).Length > 0, $"no summary.txt in {folder}");
    }

    [Fact]
    public void The_properties_are_xunit_v3_facts_with_the_suites_case_count_and_replay_settings()
    {
        var method = typeof(FrameWriterConformanceSuite).GetMethod(nameof(FrameWriterConformanceSuite.Order))!;
        var attribute = Assert.Single(method.GetCustomAttributes(typeof(ConformancePropertyAttribute), inherit: true));
        Assert.IsAssignableFrom<FactAttribute>(attribute);
        Assert.Equal("xunit.v3.core", typeof(FactAttribute).Assembly.GetName().Name);
    }
}
