using System.Diagnostics;
using System.Text;

namespace AmqpConformance.Suites.Tests.Crashes;

/// <summary>Under <c>dotnet test</c>, a writer that throws on a thread the harness does not own aborts the test host;
/// the suite still leaves the report a failure would: writer, property, scenario and replay line, in the suite's
/// summary.txt and on the test host's standard error; on several workers (<c>AMQP_CONFORMANCE_PARALLEL</c>) too, each
/// worker's case in flight with its own replay line.</summary>
public sealed class TestHostCrashTests : IDisposable
{
    private readonly string _reports = Path.Combine(
        Path.GetTempPath(),
        "amqpc-testhost-crash-" + Guid.NewGuid().ToString("N")
    );

    [Theory]
    [InlineData(null)]
    [InlineData("2")]
    public async Task A_writer_that_crashes_the_test_host_leaves_the_report_of_the_case_in_flight(string? parallel)
    {
        var (code, output) = await DotnetTestAsync(
            typeof(TestHostCrashTests).Assembly.Location,
            $"FullyQualifiedName~{nameof(CrashingSuiteChild)}",
            parallel
        );

        Assert.True(code != 0, output);
        string summary = Path.Combine(_reports, "CrashingSuite", "order", "summary.txt");
        Assert.True(File.Exists(summary), $"no {summary}; dotnet test printed: {output}");
        string report = await File.ReadAllTextAsync(summary);
        Assert.Contains("THE WRITER UNDER TEST CRASHED THE PROCESS", report, StringComparison.Ordinal);
        Assert.Contains("System.InvalidOperationException", report, StringComparison.Ordinal);
        Assert.Contains("Writer: Crashing", report, StringComparison.Ordinal);
        Assert.Contains("Property: \"order\"", report, StringComparison.Ordinal);
        Assert.Contains("In flight: case ", report, StringComparison.Ordinal);
        Assert.Matches(@"Scenario: frame_max=\S+", report);
        Assert.Matches(
            @"Replay: AMQP_CONFORMANCE_REPLAY=\d+,\d+,\d+  \(paste before: dotnet test --filter ""FullyQualifiedName~CrashingSuite\.Order""\)",
            report
        );
        Assert.Contains("Writer: Crashing", output, StringComparison.Ordinal); // the test host's standard error reaches the user
        // Every case named in flight has its replay line (on two workers, one or both may be: the crash comes at the
        // first call of whichever starts first).
        Assert.Equal(
            System.Text.RegularExpressions.Regex.Count(report, "In flight: case "),
            System.Text.RegularExpressions.Regex.Count(report, @"In flight: case .*\n.*Scenario: .*\n.*Replay: ")
        );
    }

    /// <summary>Runs <c>dotnet test</c> on a built test assembly in a child process with its own reports root, without
    /// the outer run's MSBuild and VSTest variables (they would steer the child into the outer run), on
    /// <paramref name="parallel"/> workers (null: the variable unset).</summary>
    private async Task<(int ExitCode, string Output)> DotnetTestAsync(string assembly, string filter, string? parallel)
    {
        string host =
            Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } h && File.Exists(h)
                ? h
                : "dotnet";
        var start = new ProcessStartInfo(host)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string a in new[] { "test", assembly, "--filter", filter })
            start.ArgumentList.Add(a);
        foreach (
            string name in start
                .Environment.Keys.Where(n =>
                    n.StartsWith("MSBUILD", StringComparison.OrdinalIgnoreCase)
                    || n.StartsWith("VSTEST", StringComparison.OrdinalIgnoreCase)
                )
                .ToList()
        )
            start.Environment.Remove(name);
        start.Environment[CrashChildFactAttribute.Variable] = "1";
        start.Environment["AMQP_CONFORMANCE_REPORTS"] = _reports;
        if (parallel is null)
            start.Environment.Remove("AMQP_CONFORMANCE_PARALLEL");
        else
            start.Environment["AMQP_CONFORMANCE_PARALLEL"] = parallel;
        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        start.Environment["DOTNET_NOLOGO"] = "1";
        var output = new StringBuilder();
        using var process = new Process { StartInfo = start };
        process.OutputDataReceived += (_, e) =>
        {
            if (e.Data is not null)
                lock (output)
                    output.AppendLine(e.Data);
        };
        process.ErrorDataReceived += (_, e) =>
        {
            if (e.Data is not null)
                lock (output)
                    output.AppendLine(e.Data);
        };
        process.Start();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        using var hangGuard = new CancellationTokenSource(TimeSpan.FromMinutes(5)); // only against a hang; nothing here is timed
        try
        {
            await process.WaitForExitAsync(hangGuard.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw;
        }
        process.WaitForExit();
        lock (output)
            return (process.ExitCode, output.ToString());
    }

    public void Dispose()
    {
        if (Directory.Exists(_reports))
            Directory.Delete(_reports, recursive: true);
    }
}
