using System.Globalization;
using System.Text;
using AmqpConformance.Properties.Scenarios;
using FsCheck;

namespace AmqpConformance.Properties;

/// <summary>
/// Which conformance cases this process is running right now, so that a crash can say which case caused it. An
/// exception that escapes on a thread the harness does not own (a writer's thread-pool work item, timer or thread)
/// cannot be caught: the runtime raises <see cref="AppDomain.UnhandledException"/> and ends the process, before any
/// property can fail and print its report. <see cref="UnhandledExceptionMonitor"/> then calls
/// <see cref="ReportCrash"/>, which prints what a failure would (the writer, the property, the scenario, the replay
/// line) for every case in flight and writes it to each property's <c>summary.txt</c>.
/// </summary>
/// <remarks>
/// <para>Contract: every check made through <see cref="ConformanceProperties"/> registers itself here for its duration,
/// and notes each case as it starts and ends (generated, replayed, shrink candidates, the shrunk counterexample
/// re-run); nothing else does. Several properties can run at once in one process (xunit runs test classes in parallel),
/// so there can be several cases in flight; a crash cannot tell which of them threw, so each is reported. A check's own
/// cases run one at a time, unless it runs on several workers (<see cref="PropertyRunOptions.Parallel"/>): each worker
/// registers as a check of its own, with its current case and that case's replay token, so a crash then names every
/// worker's case.</para>
/// <para>Cost: one registration per property check; per case, two short uncontended locks and no allocation.
/// Thread-safe: the snapshot may be taken from any thread, while cases run.</para>
/// </remarks>
public static class CasesInFlight
{
    private static readonly List<CaseSlot> Running = [];
    private static readonly object ReportLock = new();
    private static CaseSlot? _lastEnded;
    private static object? _reported;

    /// <summary>Every property check running in this process, each with its current and previous case, and the check
    /// that ended last (marked <see cref="PropertyInFlight.Ended"/>), since work a writer left behind can outlive its
    /// check.</summary>
    public static IReadOnlyList<PropertyInFlight> Snapshot()
    {
        CaseSlot[] slots;
        CaseSlot? ended;
        lock (Running)
        {
            slots = [.. Running];
            ended = _lastEnded;
        }
        var all = slots.Select(s => s.Read(ended: false)).ToList();
        if (ended is not null)
            all.Add(ended.Read(ended: true));
        return all;
    }

    /// <summary>The crash report for <paramref name="exception"/>, as <see cref="ReportCrash"/> prints it; null when no
    /// property check has run in this process (the exception is then none of the harness's business).</summary>
    /// <param name="exception">The exception that escaped
    /// (<see cref="UnhandledExceptionEventArgs.ExceptionObject"/>).</param>
    public static string? DescribeCrash(object exception)
    {
        ArgumentNullException.ThrowIfNull(exception);
        var reported = Reported(Snapshot());
        return reported.Count == 0 ? null : Describe(exception, reported);
    }

    /// <summary>Reports a crash: prints <see cref="DescribeCrash"/>'s report to <paramref name="output"/> (flushed),
    /// then writes it to <c>summary.txt</c> in the report folder of each property it names
    /// (<see cref="PropertyRunOptions.ReportFolder"/>) and prints a "Report: path" line for each (or why it could not).
    /// Reports once per process: the first exception that gets here, however many monitors see it and however many
    /// threads crash after it. Never throws: the process is going down.</summary>
    /// <returns>Whether there was anything to report (some property check had run).</returns>
    public static bool ReportCrash(object exception, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(exception);
        ArgumentNullException.ThrowIfNull(output);
        lock (ReportLock)
        {
            // One report per process: a writer often crashes on several threads at once, and a second report written
            // while the runtime is already ending the process for the first could be cut off half-way, over a complete
            // one.
            if (_reported is not null)
                return true;
            try
            {
                var reported = Reported(Snapshot());
                if (reported.Count == 0)
                    return false;
                _reported = exception;
                string report = Describe(exception, reported);
                output.WriteLine();
                output.WriteLine(report);
                output.Flush();
                foreach (string folder in reported.Select(p => p.ReportFolder).OfType<string>().Distinct())
                    output.WriteLine($"Report: {OutcomeArtifacts.WriteCrashSummary(folder, report)}");
                output.Flush();
                return true;
            }
            catch (Exception)
            {
                return false; // the process is going down; the runtime still prints the exception
            }
        }
    }

    /// <summary>Registers a property check for its duration (dispose the slot when it ends).</summary>
    internal static CaseSlot Begin(
        string subject,
        string property,
        PropertyRunOptions options,
        Rnd start,
        Config config
    )
    {
        var slot = new CaseSlot(subject, property, options, start, config);
        lock (Running)
            Running.Add(slot);
        return slot;
    }

    internal static void End(CaseSlot slot)
    {
        lock (Running)
        {
            Running.Remove(slot);
            _lastEnded = slot;
        }
    }

    /// <summary>The properties a crash report names: those running; the one that ended last only when no case is in
    /// flight.</summary>
    private static List<PropertyInFlight> Reported(IReadOnlyList<PropertyInFlight> all)
    {
        bool anyCase = all.Any(p => !p.Ended && p.Current is not null);
        return [.. all.Where(p => !p.Ended || !anyCase)];
    }

    private static string Describe(object exception, IReadOnlyList<PropertyInFlight> properties)
    {
        int inFlight = properties.Count(p => p.Current is not null);
        var sb = new StringBuilder();
        sb.AppendLine("amqp-conformance: THE WRITER UNDER TEST CRASHED THE PROCESS.");
        sb.AppendLine(
            "An exception escaped on a thread the harness does not own (a work item, timer or thread the writer started), so nothing"
        );
        sb.AppendLine(
            "could catch it, no property could fail, and the runtime now ends the process (on Linux: SIGABRT, exit code 134)."
        );
        sb.AppendLine(
            "Nothing a writer starts may let an exception escape. The case that was running is below; its replay line runs it again."
        );
        sb.AppendLine(CultureInfo.InvariantCulture, $"Exception: {exception}");
        if (inFlight > 1)
            sb.AppendLine(
                CultureInfo.InvariantCulture,
                $"{inFlight} cases were in flight (properties, or the workers of one property, run in parallel); the stack cannot say which one threw, so each is listed."
            );
        else if (inFlight == 0)
            sb.AppendLine(
                "No case was in flight (between cases): the crash came from work a writer left behind after its case."
            );
        foreach (var p in properties)
        {
            sb.AppendLine(CultureInfo.InvariantCulture, $"Writer: {p.Subject}");
            sb.AppendLine(
                CultureInfo.InvariantCulture,
                $"  Property: \"{p.Property}\"{(p.Ended ? " (its check had ended)" : "")}"
            );
            if (p.Current is { } current)
                AppendCase(sb, "  In flight", current);
            if (p.Previous is { } previous)
                AppendCase(
                    sb,
                    p.Current is null
                        ? "  Last case"
                        : "  The case before it (a writer's leftover work can land in the next case)",
                    previous
                );
        }
        return sb.ToString().TrimEnd();
    }

    private static void AppendCase(StringBuilder sb, string label, CaseInFlight c)
    {
        sb.AppendLine(CultureInfo.InvariantCulture, $"{label}: {c.Where}");
        sb.AppendLine(CultureInfo.InvariantCulture, $"    Scenario: {c.Scenario}");
        if (c.ReplayLine is { } line)
            sb.AppendLine(CultureInfo.InvariantCulture, $"    Replay: {line}");
    }
}

/// <summary>One property check's entry in <see cref="CasesInFlight"/>: its current and previous case, noted without
/// allocating.</summary>
internal sealed class CaseSlot : IDisposable
{
    private readonly object _lock = new();
    private readonly string _subject,
        _property;
    private readonly PropertyRunOptions _options;
    private readonly Rnd _start;
    private readonly int _startSize,
        _endSize,
        _maxTest;
    private Entry _current,
        _previous;

    public CaseSlot(string subject, string property, PropertyRunOptions options, Rnd start, Config config)
    {
        (_subject, _property, _options, _start) = (subject, property, options, start);
        (_startSize, _endSize, _maxTest) = (config.StartSize, config.EndSize, config.MaxTest);
    }

    /// <summary>A case starts. <paramref name="generatedIndex"/>: the generated case whose token replays it (0 = the
    /// first), or -1 for a replay run (whose token is <see cref="PropertyRunOptions.Replay"/>).</summary>
    public void Start(Scenario scenario, CaseStage stage, int number, int of, int generatedIndex)
    {
        lock (_lock)
            _current = new Entry(scenario, stage, number, of, generatedIndex);
    }

    /// <summary>The current case ended.</summary>
    public void Finish()
    {
        lock (_lock)
        {
            if (_current.Scenario is null)
                return;
            _previous = _current;
            _current = default;
        }
    }

    public PropertyInFlight Read(bool ended)
    {
        Entry current,
            previous;
        lock (_lock)
            (current, previous) = (_current, _previous);
        return new PropertyInFlight(_subject, _property, ToCase(current), ToCase(previous))
        {
            ReportFolder = _options.ReportFolder,
            Ended = ended,
        };
    }

    public void Dispose() => CasesInFlight.End(this);

    private CaseInFlight? ToCase(Entry e)
    {
        if (e.Scenario is null)
            return null;
        var token =
            e.GeneratedIndex < 0
                ? _options.Replay
                : CaseReplayTokens.For(_start, _startSize, _endSize, _maxTest, e.GeneratedIndex);
        return new CaseInFlight(e.Stage, e.Number, e.Of, e.Scenario, token)
        {
            ReplayHint = token is null ? null : _options.ReplayHint?.Invoke(token),
        };
    }

    private readonly record struct Entry(Scenario? Scenario, CaseStage Stage, int Number, int Of, int GeneratedIndex);
}
