using System.Diagnostics;
using System.Text;

namespace AmqpConformance.FakeBroker.Tests.Interop;

/// <summary>Runs a client program to completion or kills it (with its children) at the timeout.</summary>
internal static class ScriptRunner
{
    public static ScriptResult Run(
        string program,
        IEnumerable<string> arguments,
        TimeSpan timeout,
        string? workingDirectory = null
    )
    {
        var start = new ProcessStartInfo(program)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory ?? Environment.CurrentDirectory,
        };
        foreach (string argument in arguments)
            start.ArgumentList.Add(argument);
        var stdout = new StringBuilder();
        var stderr = new StringBuilder();
        using var process = new Process { StartInfo = start };
        process.OutputDataReceived += (_, e) =>
        {
            if (e.Data is not null)
                lock (stdout)
                    stdout.AppendLine(e.Data);
        };
        process.ErrorDataReceived += (_, e) =>
        {
            if (e.Data is not null)
                lock (stderr)
                    stderr.AppendLine(e.Data);
        };
        process.Start();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        bool exited = process.WaitForExit(timeout);
        if (!exited)
        {
            process.Kill(entireProcessTree: true);
            process.WaitForExit(TimeSpan.FromSeconds(10));
        }
        else
        {
            process.WaitForExit(); // drains the redirected streams
        }
        lock (stdout)
            lock (stderr)
                return new ScriptResult(exited ? process.ExitCode : -1, stdout.ToString(), stderr.ToString(), !exited);
    }

    public static Task<ScriptResult> RunAsync(
        string program,
        IEnumerable<string> arguments,
        TimeSpan timeout,
        string? workingDirectory = null
    ) => Task.Run(() => Run(program, arguments, timeout, workingDirectory));
}
