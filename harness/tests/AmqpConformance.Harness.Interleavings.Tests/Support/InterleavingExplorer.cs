using Microsoft.Coyote;
using Microsoft.Coyote.SystematicTesting;

namespace AmqpConformance.Harness.Interleavings.Tests.Support;

/// <summary>What one exploration found: how many interleavings ran, the bugs (Coyote's reports, e.g. a failed
/// <c>Specification.Assert</c> or a deadlock) and the trace that replays the first one.</summary>
/// <param name="Iterations">Interleavings explored (fewer than asked when it stopped at a bug).</param>
/// <param name="Bugs">Coyote's bug reports.</param>
/// <param name="Trace">The first bug's schedule, for <see cref="InterleavingExplorer.Replay"/>; empty when none was
/// found.</param>
public sealed record ExplorationResult(int Iterations, IReadOnlyList<string> Bugs, string Trace)
{
    /// <inheritdoc />
    public override string ToString() =>
        Bugs.Count == 0
            ? $"no bug in {Iterations} interleavings"
            : $"{Bugs.Count} bug(s) in {Iterations} interleavings; first: {Bugs[0]}";
}

/// <summary>Runs a test body under Coyote's systematic testing engine: each iteration runs the body once more, Coyote
/// choosing at every task switch, lock, Volatile and Interlocked operation of the rewritten assemblies which task goes
/// next, so the interleavings a black-box run reaches by chance are explored on purpose. Only works on rewritten
/// assemblies (this project's build rewrites itself and the harness).</summary>
public static class InterleavingExplorer
{
    /// <summary>Explores up to <paramref name="iterations"/> interleavings of <paramref name="test"/> from
    /// <paramref name="seed"/>, stopping at the first bug.</summary>
    public static ExplorationResult Explore(Func<Task> test, uint iterations, uint seed = 1) =>
        Run(Settings().WithTestingIterations(iterations).WithRandomGeneratorSeed(seed), test);

    /// <summary>Runs <paramref name="test"/> once on the schedule <paramref name="trace"/> recorded.</summary>
    public static ExplorationResult Replay(Func<Task> test, string trace) =>
        Run(Settings().WithReproducibleTrace(trace), test);

    /// <summary>Coyote's defaults, except for hangs it cannot prove: a task blocked in a wait Coyote does not control
    /// (a <see cref="CancellationTokenRegistration"/>'s Dispose waiting for a callback that Coyote paused on another
    /// task, as the coalescing writer's claim of a queued call does) looks like a hang to its deadlock monitor,
    /// although the real runtime would run the callback to its end. Such potential hangs are not reported (after 100 ms
    /// instead of the default 1 s); a deadlock among the tasks and locks Coyote controls, e.g. a call nobody ever
    /// completes, still is.</summary>
    private static Configuration Settings() =>
        Configuration.Create().WithPotentialDeadlocksReportedAsBugs(false).WithDeadlockTimeout(100);

    private static ExplorationResult Run(Configuration configuration, Func<Task> test)
    {
        using var engine = TestingEngine.Create(configuration, test);
        engine.Run();
        var report = engine.TestReport;
        return new ExplorationResult(
            report.NumOfExploredFairPaths + report.NumOfExploredUnfairPaths,
            [.. report.BugReports],
            report.NumOfFoundBugs > 0 ? engine.ReproducibleTrace : ""
        );
    }
}
