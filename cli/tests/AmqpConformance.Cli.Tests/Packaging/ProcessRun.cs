using System.Diagnostics;
using System.Text;

namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>What a finished child process printed and returned.</summary>
/// <param name="ExitCode">The process's exit code.</param>
/// <param name="Output">Standard output and standard error, interleaved as read.</param>
public sealed record ProcessResult(int ExitCode, string Output);

/// <summary>
/// Runs a child process (dotnet, or an installed tool) to completion with a hard timeout. On timeout the whole process
/// tree is killed and <see cref="TimeoutException"/> is thrown with what it printed so far, so nothing outlives the
/// test.
/// </summary>
public static class ProcessRun
{
    /// <summary>The dotnet host that runs this test, so children use the same SDK.</summary>
    public static string DotnetHost =>
        Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host && File.Exists(host)
            ? host
            : "dotnet";

    /// <summary>
    /// Runs <paramref name="fileName"/> with <paramref name="arguments"/> in <paramref name="workingDirectory"/>. The
    /// child gets this process's environment minus MSBuild/VSTest variables the outer <c>dotnet test</c> set (they
    /// would steer the child's build into the outer one), with <paramref name="environment"/> applied on top (null
    /// value = remove).
    /// </summary>
    public static async Task<ProcessResult> RunAsync(
        string fileName,
        IEnumerable<string> arguments,
        string workingDirectory,
        TimeSpan timeout,
        IReadOnlyDictionary<string, string?>? environment = null
    )
    {
        var start = new ProcessStartInfo(fileName)
        {
            WorkingDirectory = workingDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string argument in arguments)
            start.ArgumentList.Add(argument);
        foreach (string name in start.Environment.Keys.ToList())
        {
            if (
                name.StartsWith("MSBUILD", StringComparison.OrdinalIgnoreCase)
                || name.StartsWith("VSTEST", StringComparison.OrdinalIgnoreCase)
                || name.Equals("MSBuildExtensionsPath", StringComparison.OrdinalIgnoreCase)
                || name.Equals("MSBuildSDKsPath", StringComparison.OrdinalIgnoreCase)
            )
            {
                start.Environment.Remove(name);
            }
        }
        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        start.Environment["DOTNET_NOLOGO"] = "1";
        start.Environment["DOTNET_SKIP_FIRST_TIME_EXPERIENCE"] = "1";
        // No build servers or reusable nodes outliving the test.
        start.Environment["DOTNET_CLI_USE_MSBUILD_SERVER"] = "0";
        start.Environment["MSBUILDDISABLENODEREUSE"] = "1";
        if (environment is not null)
        {
            foreach ((string name, string? value) in environment)
            {
                if (value is null)
                    start.Environment.Remove(name);
                else
                    start.Environment[name] = value;
            }
        }

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

        using var deadline = new CancellationTokenSource(timeout);
        try
        {
            await process.WaitForExitAsync(deadline.Token);
        }
        catch (OperationCanceledException)
        {
            try
            {
                process.Kill(entireProcessTree: true);
            }
            catch (InvalidOperationException)
            { /* already exited */
            }
            using var reap = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            try
            {
                await process.WaitForExitAsync(reap.Token);
            }
            catch (OperationCanceledException)
            { /* reported below */
            }
            lock (output)
            {
                throw new TimeoutException(
                    $"{fileName} {string.Join(' ', start.ArgumentList)} did not finish within {timeout}; killed its process tree. Output so far:\n{output}"
                );
            }
        }
        process.WaitForExit(); // drains the redirected streams
        lock (output)
            return new ProcessResult(process.ExitCode, output.ToString());
    }
}
