using System.Diagnostics;
using AmqpConformance.Properties;

namespace AmqpConformance.Cli;

/// <summary>One shard of a <c>run --parallel</c>: a child process of this same CLI running <c>run ... --shard K/N
/// --json FILE</c>, with its output read as it comes (so a full pipe never stalls it) and the last lines of each kept
/// for an error message.</summary>
internal sealed class ShardProcess : IDisposable
{
    private const int TailLines = 40;
    private readonly Queue<string> _errorTail = new(),
        _outputTail = new();
    private readonly Process _process;

    private ShardProcess(Process process, CaseShard shard, string json)
    {
        _process = process;
        Shard = shard;
        Json = json;
        process.OutputDataReceived += (_, e) => Keep(_outputTail, e.Data);
        process.ErrorDataReceived += (_, e) => Keep(_errorTail, e.Data);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        Exited = WaitAsync();
    }

    /// <summary>The shard it runs.</summary>
    public CaseShard Shard { get; }

    /// <summary>The file its results are written to.</summary>
    public string Json { get; }

    /// <summary>Completes with the exit code once the process has exited and its output is read to the end.</summary>
    public Task<int> Exited { get; }

    /// <summary>Starts <c>CLI run <paramref name="arguments"/></c>.</summary>
    /// <exception cref="System.ComponentModel.Win32Exception">The CLI could not be started.</exception>
    public static ShardProcess Start(IEnumerable<string> arguments, CaseShard shard, string json)
    {
        var (file, prefix) = CliCommandLine();
        var start = new ProcessStartInfo(file)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string argument in prefix.Concat(arguments))
            start.ArgumentList.Add(argument);
        var process = Process.Start(start)
            ?? throw new System.ComponentModel.Win32Exception($"{file}: no process was started.");
        return new ShardProcess(process, shard, json);
    }

    /// <summary>How to start this CLI again: its own executable (the tool's or the build's apphost), or, when it runs
    /// through a <c>dotnet</c> host (<c>dotnet amqp-conformance.dll</c>, a test host), that host with the CLI's
    /// assembly.</summary>
    public static (string File, IReadOnlyList<string> Prefix) CliCommandLine()
    {
        string assembly = typeof(ShardProcess).Assembly.Location;
        string? self = Environment.ProcessPath;
        string name = Path.GetFileNameWithoutExtension(self ?? "");
        if (
            self is not null
            && string.Equals(name, Path.GetFileNameWithoutExtension(assembly), StringComparison.Ordinal)
        )
            return (self, []);
        string host =
            self is not null && string.Equals(name, "dotnet", StringComparison.OrdinalIgnoreCase) ? self
            : Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } path ? path
            : "dotnet";
        return (host, [assembly]);
    }

    /// <summary>The last lines it wrote to standard error, or, if none, to standard output.</summary>
    public string Tail()
    {
        lock (_errorTail)
            lock (_outputTail)
                return string.Join(Environment.NewLine, _errorTail.Count > 0 ? _errorTail : _outputTail);
    }

    /// <summary>Kills it if it still runs.</summary>
    public void Kill()
    {
        try
        {
            if (!_process.HasExited)
                _process.Kill(entireProcessTree: true);
        }
        catch (InvalidOperationException)
        {
            // It exited between the check and the kill: nothing is left to stop.
        }
        catch (System.ComponentModel.Win32Exception)
        {
            // It could not be signalled (it is exiting already): the run reports its own outcome either way, and
            // Dispose waits a bounded time for the exit.
        }
    }

    /// <summary>Kills it if it still runs, and lets the process go once it has exited (its exit handler still reads
    /// the output to the end; after 10 s it is left to the finalizer).</summary>
    public void Dispose()
    {
        Kill();
        if (Exited.Wait(TimeSpan.FromSeconds(10)))
            _process.Dispose();
    }

    private async Task<int> WaitAsync()
    {
        await _process.WaitForExitAsync().ConfigureAwait(false);
        _process.WaitForExit(); // the redirected output is read to its end
        return _process.ExitCode;
    }

    private static void Keep(Queue<string> tail, string? line)
    {
        if (line is null)
            return;
        lock (tail)
        {
            tail.Enqueue(line);
            if (tail.Count > TailLines)
                tail.Dequeue();
        }
    }
}
