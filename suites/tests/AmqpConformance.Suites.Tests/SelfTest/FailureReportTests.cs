using AmqpConformance.Harness.Reports;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties;
using AmqpConformance.SelfTest;

namespace AmqpConformance.Suites.Tests.SelfTest;

/// <summary>What a failing suite gives its user: the invariant, the shrunk scenario, a replay line that reproduces it,
/// and the artifact folder.</summary>
public sealed class FailureReportTests
{
    private sealed class DoubleReturnSuite : FrameWriterConformanceSuite
    {
        protected override FrameWriterFactory Factory => BrokenWriterModes.DoubleReturn;
    }

    [Fact]
    public void A_failing_property_throws_a_report_with_replay_and_writes_the_artifacts()
    {
        var suite = new DoubleReturnSuite();
        var error = Assert.Throws<ConformanceViolationException>(suite.Pools);
        // A buffer returned twice can also be handed out twice and corrupt a later body, so pools need not be named
        // first.
        Assert.Matches(@" violates ([a-z-]+, )*pools[ ,]", error.Message);
        Assert.Contains("property \"pools\"", error.Message, StringComparison.Ordinal);
        Assert.Contains("Counterexample: frame_max=", error.Message, StringComparison.Ordinal);
        Assert.Contains("double-return", error.Message, StringComparison.Ordinal);
        Assert.Contains(ReplayToken.EnvironmentVariable + "=", error.Message, StringComparison.Ordinal);
        Assert.Contains("FullyQualifiedName~DoubleReturnSuite.Pools", error.Message, StringComparison.Ordinal);

        string folder = ConformanceArtifacts.FolderFor(nameof(DoubleReturnSuite), InvariantNames.Pools);
        foreach (string file in new[] { "frames.jsonl", "wire.pcap", "timeline.html", "summary.txt" })
            Assert.True(new FileInfo(Path.Combine(folder, file)).Length > 0, $"{file} missing or empty in {folder}");
        string html = File.ReadAllText(Path.Combine(folder, "timeline.html"));
        Assert.Contains("<svg", html, StringComparison.Ordinal);
        Assert.Contains("double-return", html, StringComparison.Ordinal);
    }

    [Fact]
    public void The_replay_token_reproduces_the_failing_case()
    {
        var first = ConformanceProperties.Check(
            BrokenWriterModes.DoubleReturn,
            InvariantNames.Pools,
            new PropertyRunOptions { MaxTest = 100 }
        );
        Assert.False(first.Holds);
        var replayed = ConformanceProperties.Check(
            BrokenWriterModes.DoubleReturn,
            InvariantNames.Pools,
            new PropertyRunOptions { Replay = ReplayToken.Parse(first.Replay!.ToString()) }
        );
        Assert.False(replayed.Holds);
        Assert.Equal(1, replayed.CasesRun); // the token's case, first time, not a search
        // The same failure, from the same generated case. The shrunk scenarios are not compared: a shrink candidate
        // whose failure depends on timing (a cancellation racing the call that carries the multi-frame body) can go
        // either way on a loaded machine, so the replay's shrinking may settle a step earlier (frame_max 8192 instead
        // of 4096).
        Assert.Contains(replayed.Verdict!.Violations, v => v.Rule == "double-return");
        Assert.Contains(first.Verdict!.Violations, v => v.Rule == "double-return");
    }

    [Fact]
    public void A_correct_writer_holds_and_reports_how_many_cases_it_ran()
    {
        var outcome = ConformanceProperties.Check(
            WriterModes.Inline,
            InvariantNames.NoInterleaving,
            new PropertyRunOptions { MaxTest = 25 }
        );
        Assert.True(outcome.Holds, outcome.Describe());
        Assert.Equal(25, outcome.CasesRun);
    }
}
