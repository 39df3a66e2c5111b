using System.Diagnostics;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.SelfTest;

/// <summary>
/// The self-test: every zoo writer through the conformance properties exactly as a client repository's suite runs them
/// (one property per invariant, in report order, <see cref="PropertyRunOptions.DefaultCases"/> cases each unless told
/// otherwise), stopping at the first property that fails. A broken writer must be caught; a correct one must hold
/// throughout.
/// </summary>
public static class KillMatrix
{
    /// <summary>How long shrinking may go on once a writer is caught (default 5 s): the self-test measures catching,
    /// not shrinking.</summary>
    public static readonly TimeSpan DefaultShrinkBudget = TimeSpan.FromSeconds(5);

    /// <summary>The case bound of the self-test's runs: the default
    /// <see cref="Properties.Running.WriterRunOptions.CaseTimeout"/>, 15 s (a zoo writer that deadlocks the harness's
    /// thread is caught when it runs out; the correct writers' cases take milliseconds).</summary>
    public static readonly TimeSpan CaseTimeout = Properties.Running.WriterRunOptions.Default.CaseTimeout;

    /// <summary>Runs <paramref name="entry"/> through the properties.</summary>
    /// <param name="entry">The writer.</param>
    /// <param name="cases">Cases per property.</param>
    /// <param name="cancellationToken">Stops before the next property (the result then covers what ran).</param>
    /// <param name="wholeSuite">Run every property as a client repository's suite does (its default shrink budget and
    /// case bound, each failure shrunk once per writer) and measure how long the suite takes to end; by default stop at
    /// the first failing property, shrinking for at most <see cref="DefaultShrinkBudget"/>.</param>
    public static KillResult Run(
        ZooEntry entry,
        int cases = PropertyRunOptions.DefaultCases,
        CancellationToken cancellationToken = default,
        bool wholeSuite = false
    ) => RunAsync(entry, cases, cancellationToken, wholeSuite).GetAwaiter().GetResult();

    /// <summary><see cref="Run"/> for a caller that awaits: each property is checked on the check's own thread
    /// (<see cref="ConformanceProperties.CheckAsync(Harness.Writers.FrameWriterFactory, string, PropertyRunOptions?)"/>),
    /// and nothing here blocks a thread.</summary>
    public static async Task<KillResult> RunAsync(
        ZooEntry entry,
        int cases = PropertyRunOptions.DefaultCases,
        CancellationToken cancellationToken = default,
        bool wholeSuite = false
    )
    {
        ArgumentNullException.ThrowIfNull(entry);
        var stopwatch = Stopwatch.StartNew();
        int casesRun = 0,
            totalCases = 0;
        PropertyOutcome? first = null;
        var times = new List<(string, TimeSpan, bool)>();
        TimeSpan? firstFailure = null;
        foreach (string property in InvariantNames.All)
        {
            if (cancellationToken.IsCancellationRequested)
                break;
            var defaults = new PropertyRunOptions();
            var options = new PropertyRunOptions
            {
                MaxTest = cases,
                ShrinkBudget = wholeSuite ? defaults.ShrinkBudget : DefaultShrinkBudget,
                Cancellation = cancellationToken,
                Runner = wholeSuite
                    ? defaults.Runner
                    : Properties.Running.WriterRunOptions.Default with
                    {
                        CaseTimeout = CaseTimeout,
                    },
                ReplayHint = token =>
                    $"paste: amqp-conformance run --writer {entry.Name} --invariant {property} --replay {token}",
            };
            var started = stopwatch.Elapsed;
            var outcome = await ConformanceProperties
                .CheckAsync(entry.Factory, property, options)
                .ConfigureAwait(false);
            totalCases += outcome.CasesRun;
            times.Add((property, outcome.Elapsed, outcome.Holds));
            if (first is null)
                casesRun += outcome.CasesRun;
            if (outcome.Holds || first is not null)
                continue;
            (first, firstFailure) = (outcome, started + (outcome.FirstFailureAfter ?? outcome.Elapsed));
            if (!wholeSuite)
                break;
        }
        return new KillResult(entry, first, casesRun, stopwatch.Elapsed)
        {
            FirstFailureAfter = firstFailure,
            WholeSuite = wholeSuite,
            TotalCases = totalCases,
            PropertyTimes = times,
        };
    }

    /// <summary>The <paramref name="fraction"/> quantile (0.5 for the median, 0.95, 1 for the maximum) of
    /// <paramref name="values"/>, by the nearest-rank method; null when there are none.</summary>
    public static double? Quantile(IEnumerable<double> values, double fraction)
    {
        var sorted = values.Order().ToList();
        if (sorted.Count == 0)
            return null;
        int rank = (int)Math.Ceiling(fraction * sorted.Count);
        return sorted[Math.Clamp(rank, 1, sorted.Count) - 1];
    }

    /// <summary>Replays <paramref name="result"/>'s failing case <paramref name="times"/> times from its replay token,
    /// as a user pasting the printed replay line would (each replay runs the case up to
    /// <see cref="PropertyRunOptions.ReplayAttempts"/> times until it fails). Null for a result that did not
    /// fail.</summary>
    public static ReplayCheck? CheckReplay(KillResult result, int times)
    {
        ArgumentNullException.ThrowIfNull(result);
        if (result.Failure is not { Replay: { } token } failure)
            return null;
        int reproduced = 0,
            firstAttempt = 0;
        for (int i = 0; i < times; i++)
        {
            var replay = ConformanceProperties.Check(
                result.Entry.Factory,
                failure.Invariant,
                new PropertyRunOptions { Replay = token, ShrinkBudget = TimeSpan.Zero }
            );
            if (replay.Holds)
                continue;
            reproduced++;
            if (replay.ReplayAttemptsNeeded == 1)
                firstAttempt++;
        }
        return new ReplayCheck(times, reproduced, firstAttempt);
    }

    /// <summary>The median of the broken writers' cases to failure (caught ones only); null when none was
    /// caught.</summary>
    public static double? MedianCasesToFailure(IEnumerable<KillResult> results)
    {
        var cases = results.Where(r => !r.Entry.IsCorrect && r.Caught).Select(r => (double)r.CasesRun).Order().ToList();
        if (cases.Count == 0)
            return null;
        return cases.Count % 2 == 1
            ? cases[cases.Count / 2]
            : (cases[cases.Count / 2 - 1] + cases[cases.Count / 2]) / 2;
    }
}
