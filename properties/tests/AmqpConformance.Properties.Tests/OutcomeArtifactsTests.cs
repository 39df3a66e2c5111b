using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Properties.Tests;

/// <summary>A failure's artifacts go where the run's options say, with the replay hint they make: the folder and the
/// replay line are named once, by whoever made the options (a suite, the CLI), and a crash report of the same run uses
/// the same ones.</summary>
public sealed class OutcomeArtifactsTests : IDisposable
{
    private readonly string _root = Directory.CreateTempSubdirectory("amqpc-outcome-").FullName;

    public void Dispose() => Directory.Delete(_root, recursive: true);

    private static PropertyOutcome Failing()
    {
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10)],
            ],
            FaultPlan.Empty
        );
        var evidence = new ConformanceEvidence
        {
            Frames = [],
            Calls = [],
            FrameMax = 4096,
        };
        var verdict = new Verdict(
            InvariantNames.Order,
            [new Violation(InvariantNames.Order, "lost-publish", "lost", [], [0])]
        );
        return new PropertyOutcome(
            InvariantNames.Order,
            "W",
            3,
            0,
            scenario,
            verdict,
            new RunResult(scenario, evidence, new FrameLog()),
            ReplayToken.Parse("1,2,3"),
            TimeSpan.Zero
        );
    }

    [Fact]
    public void The_artifacts_go_into_the_options_folder_with_the_options_replay_hint()
    {
        string folder = Path.Combine(_root, "suite", "order");
        var options = new PropertyRunOptions { ReportFolder = folder, ReplayHint = token => $"replay {token} here" };
        var written = OutcomeArtifacts.Write(Failing(), options);

        Assert.Equal(Path.GetFullPath(folder), written.ArtifactFolder);
        Assert.Equal("replay 1,2,3 here", OutcomeArtifacts.ReplayHintFor(written, options));
        string summary = File.ReadAllText(Path.Combine(folder, "summary.txt"));
        Assert.Contains("=1,2,3  (replay 1,2,3 here)", summary, StringComparison.Ordinal);
        Assert.True(File.Exists(Path.Combine(folder, "timeline.html")));
    }

    [Fact]
    public void Options_that_name_no_folder_write_nothing()
    {
        var outcome = Failing();
        Assert.Same(outcome, OutcomeArtifacts.Write(outcome, new PropertyRunOptions()));
        Assert.Empty(Directory.GetFileSystemEntries(_root));
        Assert.Null(OutcomeArtifacts.ReplayHintFor(outcome, new PropertyRunOptions()));
    }
}
