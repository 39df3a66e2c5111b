using System.Text.RegularExpressions;
using System.Threading.Tasks.Sources;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Cli.Tests;

/// <summary>A writer that kills the process with an exception nobody can catch: <c>amqp-conformance run</c> still says
/// which writer, property and case did it, with a replay line that does it again, on its output and in the report
/// folder.</summary>
[Trait("Area", "Run")]
public sealed partial class CrashReportTests : IDisposable
{
    private readonly string _reports = Path.Combine(
        Path.GetTempPath(),
        "amqpc-crash-tests-" + Guid.NewGuid().ToString("N")
    );

    /// <summary>A deliberately broken writer that crashes the process, deterministically: its first call completes a
    /// <see cref="ManualResetValueTaskSourceCore{TResult}"/> twice on a thread-pool work item
    /// (InvalidOperationException, on a thread nobody awaits) and never returns, so that case is in flight whenever the
    /// work item runs. Test-only: the self-test's zoo must survive its writers, so it has no place there.</summary>
    public sealed class CrashingFactory : FrameWriterFactory
    {
        public override string Name => "Crashing";

        public override IFrameWriter CreateWriter(WriterContext context) => new CrashingWriter();

        private sealed class CrashingWriter : IFrameWriter
        {
            public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
            {
                ThreadPool.UnsafeQueueUserWorkItem(
                    _ =>
                    {
                        var completion = new ManualResetValueTaskSourceCore<bool>();
                        completion.SetResult(true);
                        completion.SetResult(true); // completed twice: throws here, where nothing can catch it
                    },
                    null
                );
                Thread.Sleep(Timeout.Infinite);
                return default;
            }

            public ValueTask DisposeAsync() => default;
        }
    }

    private static string Writer => $"{typeof(CrashReportTests).Assembly.Location}:{typeof(CrashingFactory).FullName}";

    private async Task<(int ExitCode, string Output)> RunAsync(params string[] args)
    {
        using var hangGuard = new CancellationTokenSource(TimeSpan.FromMinutes(5)); // only against a hang; the crash itself is not timed
        using var cli = RunningCli.Start([
            "run",
            "--writer",
            Writer,
            "--invariant",
            "order",
            .. args,
            "--report",
            _reports,
        ]);
        await cli.Process.WaitForExitAsync(hangGuard.Token);
        cli.Process.WaitForExit(); // drains the redirected output
        return (cli.Process.ExitCode, cli.Output() + cli.Errors());
    }

    [Fact]
    public async Task A_writer_that_crashes_the_process_gets_a_report_naming_the_case_with_a_replay_line_that_crashes_it_again()
    {
        var (code, output) = await RunAsync("--cases", "200");

        if (OperatingSystem.IsLinux())
            Assert.True(code == 134, $"exit code {code}: {output}"); // SIGABRT: the runtime's choice
        Assert.Contains("THE WRITER UNDER TEST CRASHED THE PROCESS", output, StringComparison.Ordinal);
        Assert.Contains("System.InvalidOperationException", output, StringComparison.Ordinal);
        Assert.Contains("CrashingWriter", output, StringComparison.Ordinal); // the stack names the writer's code
        Assert.Contains("Writer: Crashing", output, StringComparison.Ordinal);
        Assert.Contains("Property: \"order\"", output, StringComparison.Ordinal);
        Assert.Contains("In flight: case ", output, StringComparison.Ordinal);
        string scenario = ScenarioLine().Match(output).Groups[1].Value;
        Assert.StartsWith("frame_max=", scenario, StringComparison.Ordinal);
        string token = ReplayLine().Match(output).Groups[1].Value;
        Assert.NotEmpty(token);
        Assert.Contains($"--invariant order --replay {token}", output, StringComparison.Ordinal);

        string summary = Path.Combine(_reports, "Crashing", "order", "summary.txt");
        Assert.True(File.Exists(summary), $"no {summary}: {output}");
        string written = await File.ReadAllTextAsync(summary);
        Assert.Contains($"Scenario: {scenario}", written, StringComparison.Ordinal);
        Assert.Contains($"AMQP_CONFORMANCE_REPLAY={token}", written, StringComparison.Ordinal);
        Assert.Contains($"Report: {summary}", output, StringComparison.Ordinal);

        var (again, replayed) = await RunAsync("--replay", token);
        if (OperatingSystem.IsLinux())
            Assert.True(again == 134, $"exit code {again}: {replayed}");
        Assert.Contains("In flight: replay attempt 1 of 100", replayed, StringComparison.Ordinal);
        Assert.Equal(scenario, ScenarioLine().Match(replayed).Groups[1].Value);
    }

    [GeneratedRegex(@"Scenario: (.+?)\r?\n")]
    private static partial Regex ScenarioLine();

    [GeneratedRegex(@"AMQP_CONFORMANCE_REPLAY=(\d+,\d+,\d+)")]
    private static partial Regex ReplayLine();

    public void Dispose()
    {
        if (Directory.Exists(_reports))
            Directory.Delete(_reports, recursive: true);
    }
}
