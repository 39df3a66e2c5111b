using System.Diagnostics;
using System.Globalization;

namespace AmqpConformance.Cli.Tests;

/// <summary>The real <c>amqp-conformance</c> started as a process (<c>dotnet amqp-conformance.dll ...</c>) with its
/// output collected as it comes; for what only a process shows: signals, exit codes, files flushed on stop.</summary>
internal sealed class RunningCli : IDisposable
{
    private static readonly string CliDll = Path.Combine(AppContext.BaseDirectory, "amqp-conformance.dll");
    private readonly System.Text.StringBuilder _out = new(),
        _err = new();

    private RunningCli(Process process)
    {
        Process = process;
        process.OutputDataReceived += (_, e) =>
        {
            lock (_out)
                _out.AppendLine(e.Data);
        };
        process.ErrorDataReceived += (_, e) =>
        {
            lock (_err)
                _err.AppendLine(e.Data);
        };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
    }

    public Process Process { get; }

    /// <summary>Starts the CLI with <paramref name="arguments"/>, and <paramref name="environment"/> set in its
    /// environment.</summary>
    public static RunningCli Start(
        IEnumerable<string> arguments,
        IReadOnlyDictionary<string, string>? environment = null
    )
    {
        // A process started as a background job of a non-interactive shell ignores SIGINT, and so does every child it
        // starts: the CLI would then never see the SIGINT the signal tests send. Give the child SIGINT's default back.
        bool restoreSigint = IgnoresSigint() && EnvRestoresSignals.Value;
        var start = new ProcessStartInfo(restoreSigint ? "env" : "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var (name, value) in environment ?? new Dictionary<string, string>())
            start.Environment[name] = value;
        if (restoreSigint)
        {
            start.ArgumentList.Add("--default-signal=INT");
            start.ArgumentList.Add("dotnet");
        }
        start.ArgumentList.Add(CliDll);
        foreach (string argument in arguments)
            start.ArgumentList.Add(argument);
        return new RunningCli(Process.Start(start)!);
    }

    /// <summary>Whether env(1) here can reset a signal to its default (GNU coreutils 8.31 and later:
    /// --default-signal).</summary>
    private static readonly Lazy<bool> EnvRestoresSignals = new(() =>
    {
        try
        {
            using var probe = Process.Start(
                new ProcessStartInfo("env", ["--default-signal=INT", "true"])
                {
                    RedirectStandardError = true,
                    UseShellExecute = false,
                }
            )!;
            return probe.WaitForExit(10_000) && probe.ExitCode == 0;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return false;
        }
    });

    /// <summary>Whether this process ignores SIGINT (Linux: bit 2 of SigIgn in /proc/self/status; false where there is
    /// no such file).</summary>
    private static bool IgnoresSigint()
    {
        const string Status = "/proc/self/status";
        if (!File.Exists(Status))
            return false;
        string? line = File.ReadLines(Status).FirstOrDefault(l => l.StartsWith("SigIgn:", StringComparison.Ordinal));
        return line is not null
            && (
                ulong.Parse(line["SigIgn:".Length..].Trim(), NumberStyles.HexNumber, CultureInfo.InvariantCulture) & 0x2
            ) != 0;
    }

    public string Output()
    {
        lock (_out)
            return _out.ToString();
    }

    public string Errors()
    {
        lock (_err)
            return _err.ToString();
    }

    /// <summary>Sends a POSIX signal with kill(1): <see cref="Process.Kill()"/> would be SIGKILL, not SIGINT.</summary>
    public void Signal(string signal)
    {
        using var kill = Process.Start("kill", [$"-{signal}", Process.Id.ToString(CultureInfo.InvariantCulture)]);
        kill.WaitForExit(10_000);
        Assert.Equal(0, kill.ExitCode);
    }

    /// <summary>Waits until the output contains <paramref name="text"/>; fails if the process exits first.</summary>
    public async Task WaitForOutputAsync(string text, CancellationToken cancellationToken)
    {
        while (!Output().Contains(text, StringComparison.Ordinal))
        {
            if (Process.HasExited)
                throw new InvalidOperationException($"the CLI exited before printing \"{text}\": {Output()}{Errors()}");
            await Task.Delay(50, cancellationToken);
        }
    }

    public void Dispose()
    {
        if (!Process.HasExited)
            Process.Kill(entireProcessTree: true);
        Process.Dispose();
    }
}
