namespace AmqpConformance.FakeBroker.Tests.Interop;

/// <summary>What a client script printed and how it exited.</summary>
internal sealed record ScriptResult(int ExitCode, string StandardOutput, string StandardError, bool TimedOut)
{
    public override string ToString() =>
        $"exit {ExitCode}{(TimedOut ? " (killed: timed out)" : "")}\n--- stdout ---\n{Tail(StandardOutput)}\n--- stderr ---\n{Tail(StandardError)}";

    private static string Tail(string text) => text.Length <= 4000 ? text : "..." + text[^4000..];
}
