namespace AmqpConformance.Cli.Fuzzing;

/// <summary>Collects exceptions nobody handled while it is installed: <see cref="AppDomain.UnhandledException"/> (the
/// process is about to die; the message still reaches the report's writer if it can) and
/// <see cref="TaskScheduler.UnobservedTaskException"/> (a faulted task nobody awaited, seen when it is collected).</summary>
internal sealed class UnhandledExceptionMonitor : IDisposable
{
    private readonly List<string> _seen = [];
    private readonly TextWriter _output;

    public UnhandledExceptionMonitor(TextWriter output)
    {
        _output = output;
        AppDomain.CurrentDomain.UnhandledException += OnUnhandled;
        TaskScheduler.UnobservedTaskException += OnUnobserved;
    }

    /// <summary>What was seen so far ("unobserved task: ..." / "unhandled: ...").</summary>
    public IReadOnlyList<string> Seen { get { lock (_seen) return [.. _seen]; } }

    /// <summary>Collects garbage so that faulted tasks nobody observed report themselves, then returns <see cref="Seen"/>.</summary>
    public IReadOnlyList<string> Flush()
    {
        for (int i = 0; i < 2; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
        return Seen;
    }

    private void OnUnhandled(object? sender, UnhandledExceptionEventArgs e)
    {
        string text = "unhandled: " + e.ExceptionObject;
        lock (_seen) _seen.Add(text);
        try { _output.WriteLine("fuzz: " + text); _output.Flush(); } catch (Exception) { /* the process is going down */ }
    }

    private void OnUnobserved(object? sender, UnobservedTaskExceptionEventArgs e)
    {
        lock (_seen) _seen.Add("unobserved task: " + e.Exception.Flatten().InnerException);
        e.SetObserved();
    }

    public void Dispose()
    {
        AppDomain.CurrentDomain.UnhandledException -= OnUnhandled;
        TaskScheduler.UnobservedTaskException -= OnUnobserved;
    }
}
