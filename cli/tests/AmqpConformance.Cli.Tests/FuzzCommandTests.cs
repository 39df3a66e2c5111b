using System.CommandLine;
using System.Text.RegularExpressions;
using AmqpConformance.Cli.Fuzzing;

namespace AmqpConformance.Cli.Tests;

/// <summary><c>amqp-conformance fuzz</c>: a short run of each target prints the report and exits 0 when clean; a report
/// with a failure says FAILED with the line that replays it; the same seed and budget give the same cases.</summary>
/// <remarks>The fuzzer counts every unobserved task exception in the process, so these tests run alone, after a
/// collection that lets earlier tests' garbage report itself first.</remarks>
[Collection(nameof(FuzzCommandTests))]
public sealed partial class FuzzCommandTests
{
    [GeneratedRegex(
        @"^fuzz (broker|proxy-api): seed 3, (\d+) (frames|requests) in (\d+) (connections|requests), [\d.]+ s$",
        RegexOptions.Multiline
    )]
    private static partial Regex Header();

    private static async Task<(int Code, string Text)> RunAsync(string commandLine)
    {
        for (int i = 0; i < 2; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
        var output = new StringWriter();
        var root = new RootCommand { FuzzCommand.Create() };
        using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(2));
        int code = await root.Parse(commandLine)
            .InvokeAsync(new InvocationConfiguration { Output = output, Error = output }, timeout.Token);
        return (code, output.ToString());
    }

    [Theory]
    [InlineData("fuzz broker --frames 3000 --seed 3", 3000)]
    [InlineData("fuzz proxy-api --requests 300 --seed 3", 300)]
    public async Task A_short_run_reports_every_failure_kind_memory_and_outcomes_and_exits_0_when_clean(
        string commandLine,
        long budget
    )
    {
        (int code, string text) = await RunAsync(commandLine);

        Match header = Header().Match(text);
        Assert.True(header.Success, text);
        Assert.InRange(
            long.Parse(header.Groups[2].Value, System.Globalization.CultureInfo.InvariantCulture),
            budget,
            budget + 200
        );
        foreach (
            string kind in new[]
            {
                "crashes (broker internal errors)",
                "hangs",
                "unhandled exceptions",
                "responses >= 500",
                "contract violations",
            }
        )
            Assert.Contains($"\n  {kind}: 0\n", text.ReplaceLineEndings("\n"), StringComparison.Ordinal);
        Assert.Matches(
            @"\n  memory: managed heap [\d.]+ -> [\d.]+ MiB, RSS [\d.]+ -> [\d.]+ MiB \(peak [\d.]+ MiB\)\n",
            text.ReplaceLineEndings("\n")
        );
        Assert.Matches(@"\n  outcomes: .+ \d+", text);
        Assert.EndsWith("verdict: clean", text.TrimEnd(), StringComparison.Ordinal);
        Assert.Equal(0, code);
    }

    [Fact]
    public async Task The_same_seed_and_frame_budget_replay_the_same_broker_cases()
    {
        static string Outcomes(string text) => Regex.Match(text, @"outcomes: .+").Value;
        (_, string first) = await RunAsync("fuzz broker --frames 2000 --seed 9 --parallel 3");
        (_, string second) = await RunAsync("fuzz broker --frames 2000 --seed 9 --parallel 1");
        Assert.Equal(Outcomes(first), Outcomes(second));
        Assert.NotEmpty(Outcomes(first));
    }

    [Fact]
    public void A_report_with_a_failure_says_FAILED_and_how_to_replay_it()
    {
        var report = new FuzzReport
        {
            Target = "broker",
            Seed = 42,
            Unit = "frames",
            Sent = 1000,
            Cases = 40,
        };
        report.Add(report.Crashes, "case 7 (seed 42, case seed 1): boom");
        var output = new StringWriter();
        report.Write(output);
        string text = output.ToString();
        Assert.False(report.Clean);
        Assert.Contains("  crashes (broker internal errors): 1", text, StringComparison.Ordinal);
        Assert.Contains("    case 7 (seed 42, case seed 1): boom", text, StringComparison.Ordinal);
        Assert.Contains(
            "verdict: FAILED (replay: amqp-conformance fuzz broker --seed 42 --frames 1000)",
            text,
            StringComparison.Ordinal
        );
    }

    [Theory]
    [InlineData("fuzz gremlins")]
    [InlineData("fuzz broker --frames 0")]
    [InlineData("fuzz proxy-api --seconds -1")]
    [InlineData("fuzz broker --parallel 0")]
    public void Bad_arguments_are_refused(string commandLine) =>
        Assert.NotEmpty(
            new RootCommand { FuzzCommand.Create() }
                .Parse(commandLine)
                .Errors
        );
}

[CollectionDefinition(nameof(FuzzCommandTests), DisableParallelization = true)]
public sealed class FuzzCommandTestsCollection;
