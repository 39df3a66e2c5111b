namespace AmqpConformance.Properties;

/// <summary>
/// Watches for exceptions nobody handled while it is installed: <see cref="AppDomain.UnhandledException"/> (the process
/// is about to die: this is the last moment to say why) and, optionally,
/// <see cref="TaskScheduler.UnobservedTaskException"/> (a faulted task nobody awaited, seen when it is collected). When
/// a conformance property check has run in the process, an unhandled exception gets the crash report of
/// <see cref="CasesInFlight.ReportCrash"/> (writer, property, scenario, replay line, report file); otherwise one line,
/// "source: unhandled: exception".
/// </summary>
/// <remarks>
/// <para>Nothing can keep the process alive once an exception is unhandled; the runtime ends it after the handlers ran
/// (on Linux with SIGABRT, exit code 134). <see cref="ConformanceProperties"/> installs one monitor for the whole
/// process, writing to standard error, the first time it checks a property, so every suite and command that runs
/// properties gets the crash report; <c>amqp-conformance fuzz</c> installs its own to collect findings.</para>
/// <para>Thread-safe. The handlers never throw.</para>
/// </remarks>
public sealed class UnhandledExceptionMonitor : IDisposable
{
    private static readonly Lazy<UnhandledExceptionMonitor> ProcessWide = new(
        () =>
            new UnhandledExceptionMonitor(
                Console.Error,
                "amqp-conformance",
                watchUnobservedTasks: false,
                echoOthers: false
            ),
        LazyThreadSafetyMode.ExecutionAndPublication
    );

    private readonly List<string> _seen = [];
    private readonly TextWriter _output;
    private readonly string _source;
    private readonly bool _watchUnobservedTasks,
        _echoOthers;

    /// <summary>Installs a monitor that reports to <paramref name="output"/> and collects what it sees
    /// (<see cref="Seen"/>), including faulted tasks nobody observed (it marks them observed).</summary>
    /// <param name="output">Where reports go, flushed at once.</param>
    /// <param name="source">Prefixes the one-line reports, e.g. "fuzz".</param>
    public UnhandledExceptionMonitor(TextWriter output, string source)
        : this(output, source, watchUnobservedTasks: true, echoOthers: true) { }

    private UnhandledExceptionMonitor(TextWriter output, string source, bool watchUnobservedTasks, bool echoOthers)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(source);
        (_output, _source, _watchUnobservedTasks, _echoOthers) = (output, source, watchUnobservedTasks, echoOthers);
        AppDomain.CurrentDomain.UnhandledException += OnUnhandled;
        if (watchUnobservedTasks)
            TaskScheduler.UnobservedTaskException += OnUnobserved;
    }

    /// <summary>What was seen so far ("unobserved task: ..." / "unhandled: ...").</summary>
    public IReadOnlyList<string> Seen
    {
        get
        {
            lock (_seen)
                return [.. _seen];
        }
    }

    /// <summary>Collects garbage so that faulted tasks nobody observed report themselves, then returns
    /// <see cref="Seen"/>.</summary>
    public IReadOnlyList<string> Flush()
    {
        for (int i = 0; i < 2; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
        return Seen;
    }

    /// <summary>Installs, once per process, the monitor that prints crash reports to standard error (idempotent, cheap
    /// after the first call; it stays installed).</summary>
    internal static void EnsureProcessWide() => _ = ProcessWide.Value;

    private void OnUnhandled(object? sender, UnhandledExceptionEventArgs e)
    {
        string text = "unhandled: " + e.ExceptionObject;
        lock (_seen)
            _seen.Add(text);
        try
        {
            if (CasesInFlight.ReportCrash(e.ExceptionObject, _output) || !_echoOthers)
                return;
            _output.WriteLine($"{_source}: {text}");
            _output.Flush();
        }
        catch (Exception)
        {
            // the process is going down
        }
    }

    private void OnUnobserved(object? sender, UnobservedTaskExceptionEventArgs e)
    {
        lock (_seen)
            _seen.Add("unobserved task: " + e.Exception.Flatten().InnerException);
        e.SetObserved();
    }

    /// <summary>Uninstalls the handlers.</summary>
    public void Dispose()
    {
        AppDomain.CurrentDomain.UnhandledException -= OnUnhandled;
        if (_watchUnobservedTasks)
            TaskScheduler.UnobservedTaskException -= OnUnobserved;
    }
}
