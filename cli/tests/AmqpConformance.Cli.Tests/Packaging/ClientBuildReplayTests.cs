using System.Globalization;
using System.Text.RegularExpressions;
using Xunit.Abstractions;

namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>
/// Replays of the defects found in RabbitMQ.Client PR #1912 (docs/known-client-defects.md), run as a maintainer runs
/// them: a project made by <c>dotnet new amqp-conformance</c>, pointed at the PR's build with
/// <c>-p:RabbitMqClientAssembly=</c>, with a hand-made client-level case added to it
/// (<c>Packaging/probe/WriteSemaphoreReplay.cs.txt</c>). Only where that build is (<see cref="ClientBuildFactAttribute"/>).
/// </summary>
[Collection(PackagingCollection.Name)]
[Trait("Category", "Packaging")]
public sealed partial class ClientBuildReplayTests(PackedFeed feed, ITestOutputHelper output)
{
    /// <summary>The inline writer's close disposes its write semaphore while publishers wait on it, and those calls
    /// never complete: with eight publishers and a reset, 2-8 of 10 cases hung on a loaded machine (the doc's table);
    /// the background writer, same build, same cases: 0 of 10. Asserted over 20 cases: at least one with the inline
    /// writer, none with the background one.</summary>
    [ClientBuildFact]
    public async Task The_inline_writer_strands_publishers_waiting_on_its_write_semaphore_after_a_reset_and_the_background_writer_does_not()
    {
        string dll = ClientBuildFactAttribute.Dll!;
        (_, string project, Dictionary<string, string?> environment) = await TemplateProjects.CreateAsync(
            feed,
            "client-build-replay",
            "Acme.ClientReplay"
        );
        File.Copy(feed.ProbeSource("WriteSemaphoreReplay.cs.txt"), Path.Combine(project, "WriteSemaphoreReplay.cs"));

        (int hung, string report) = await ReplayAsync(project, environment, dll, inline: true, build: true);
        Assert.Contains(
            "(inline writer, UseBackgroundFrameWriter=false): call-hung in",
            report,
            StringComparison.Ordinal
        );
        Assert.True(hung >= 1, $"the inline writer's stranded publishers did not show in 20 cases:\n{report}");
        Assert.Contains("faults/call-hung", report, StringComparison.Ordinal);

        (int background, string backgroundReport) = await ReplayAsync(
            project,
            environment,
            dll,
            inline: false,
            build: false
        );
        Assert.Contains(
            "(background writer, UseBackgroundFrameWriter=true): call-hung in",
            backgroundReport,
            StringComparison.Ordinal
        );
        Assert.True(background == 0, $"the background writer left a call hung:\n{backgroundReport}");
    }

    private async Task<(int Hung, string Output)> ReplayAsync(
        string project,
        Dictionary<string, string?> environment,
        string dll,
        bool inline,
        bool build
    )
    {
        environment[TemplateProjects.BackgroundWriterVariable] = inline ? "false" : "true";
        ProcessResult run = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            [
                "test",
                "-nodeReuse:false",
                .. build ? Array.Empty<string>() : ["--no-build"],
                "-p:RabbitMqClientAssembly=" + dll,
                "--filter",
                "Replay=WriteSemaphore",
                "--logger",
                "console;verbosity=detailed",
            ],
            project,
            TimeSpan.FromMinutes(10),
            environment
        );
        output.WriteLine(run.Output);
        Assert.True(run.ExitCode == 0, $"dotnet test of the replay failed ({run.ExitCode}):\n{run.Output}");
        Match count = HungCount().Match(run.Output);
        Assert.True(count.Success, $"the replay printed no count:\n{run.Output}");
        return (int.Parse(count.Groups[1].Value, CultureInfo.InvariantCulture), run.Output);
    }

    [GeneratedRegex(@"call-hung in (\d+) of 20")]
    private static partial Regex HungCount();
}
