using System.CommandLine;

namespace AmqpConformance.Cli.Tests;

/// <summary>One CLI command run in the test's own process, as <c>amqp-conformance</c> would parse and run it, with its
/// output and error collected; for what a process of its own adds (signals, crashes), see <see cref="RunningCli"/>.</summary>
internal static class InProcessCli
{
    /// <summary>Runs <paramref name="command"/> with <paramref name="args"/> (its name is put first); cancelled after
    /// <paramref name="timeout"/>, only against a hang. Its exit code and what it wrote.</summary>
    public static (int ExitCode, string Output, string Error) Invoke(
        Command command,
        TimeSpan timeout,
        params string[] args
    )
    {
        using var cancel = new CancellationTokenSource(timeout);
        var output = new StringWriter();
        var error = new StringWriter();
        var root = new RootCommand { command };
        int code = root.Parse([command.Name, .. args])
            .InvokeAsync(new InvocationConfiguration { Output = output, Error = error }, cancel.Token)
            .GetAwaiter()
            .GetResult();
        return (code, output.ToString(), error.ToString());
    }
}
