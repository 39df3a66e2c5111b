using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties;

/// <summary>How a conformance property is checked.</summary>
public sealed record PropertyRunOptions
{
    /// <summary>The default number of generated cases per property in CI (overridden by
    /// <c>AMQP_CONFORMANCE_CASES</c>).</summary>
    public const int DefaultCases = 100;

    /// <summary>The environment variable that overrides the number of cases, e.g. 500 for a release gate.</summary>
    public const string CasesEnvironmentVariable = "AMQP_CONFORMANCE_CASES";

    /// <summary>How many cases to generate (when not replaying).</summary>
    public int MaxTest { get; init; } = DefaultCases;

    /// <summary>The environment variable that fixes the run's seed (<see cref="Seed"/>): a number.</summary>
    public const string SeedEnvironmentVariable = "AMQP_CONFORMANCE_SEED";

    /// <summary>The run's seed: each property starts generating from it (mixed with the property's name), so two runs
    /// with one seed generate the same cases in the same order, as the shards of a run must (<see cref="Shard"/>). Null
    /// (the default): a fresh random start for each property. A failure's replay token replays its case either
    /// way.</summary>
    public ulong? Seed { get; init; }

    /// <summary>Runs only this shard's slice of the generated cases (<see cref="CaseShard"/>); the others pass untried
    /// and are not counted. Null (the default): every case. Shards of one run need one <see cref="Seed"/>.</summary>
    public CaseShard? Shard { get; init; }

    /// <summary>The environment variable that sets <see cref="Parallel"/> for a suite: a number of workers (at least 1)
    /// or <c>auto</c> (<see cref="Environment.ProcessorCount"/>).</summary>
    public const string ParallelEnvironmentVariable = "AMQP_CONFORMANCE_PARALLEL";

    /// <summary>How many workers judge a writer-level check's generated cases at once, in this process (default 1: one
    /// case at a time). With more, the check takes one seed (<see cref="Seed"/>, or one it draws and reports in
    /// <see cref="PropertyOutcome.Seed"/>), cuts its cases into that many shards of it (<see cref="CaseShard"/>; of
    /// <see cref="Shard"/> when one is set, so a CI shard is cut further) and runs each shard on a thread of its own,
    /// each case with its own connection, transport and broker, as always. The outcome is the one a run on one worker
    /// with that seed reports: the failure of the lowest case index (<see cref="ShardMerge"/>), with its
    /// counterexample, shrink, replay token and case count; when every case holds, the cases of all workers. A worker
    /// that failed shrinks only once every case before its failure has passed, so the failure it shrinks is the run's;
    /// while it shrinks, the other workers stop (their cases after it pass untried, as a run on one worker never
    /// reaches them), and only its shrink counts for <see cref="ShrinkOncePerWriter"/>. Ignored when replaying (one
    /// case), and by client-level checks and checks with a caller's own way of running a case
    /// (<see cref="ConformanceProperties.Check(string, string, PropertyRunOptions, Func{Scenarios.Scenario, RunResult}, FsCheck.Arbitrary{Scenarios.Scenario}?)"/>),
    /// which judge one case at a time. Cases side by side share the process's cores, thread pool and scheduling-lag
    /// meter, which judges the real-time bounds (decisions.md, "Parallel workers in one check"): on a busy machine,
    /// separate processes (<c>amqp-conformance run --parallel</c>) judge those bounds as a run alone does.</summary>
    /// <exception cref="ArgumentOutOfRangeException">Set to less than 1.</exception>
    public int Parallel
    {
        get => _parallel;
        init =>
            _parallel =
                value >= 1
                    ? value
                    : throw new ArgumentOutOfRangeException(nameof(Parallel), value, "At least one worker.");
    }

    private readonly int _parallel = 1;

    /// <summary>Replays exactly one earlier case instead of generating new ones.</summary>
    public ReplayToken? Replay { get; init; }

    /// <summary>When replaying: at most how many times the replayed case is run until it fails again (default 100; see
    /// also <see cref="ReplayBudget"/>). A scripted case is driven step by step and fails again on the first attempt; a
    /// free-running one depends on thread timing, and a race that shows once in a few dozen runs still comes back. The
    /// outcome says which attempt failed (<see cref="PropertyOutcome.ReplayAttemptsNeeded"/>).</summary>
    public int ReplayAttempts { get; init; } = DefaultReplayAttempts;

    /// <summary>The default of <see cref="ReplayAttempts"/>.</summary>
    public const int DefaultReplayAttempts = 100;

    /// <summary>The default of <see cref="ReplayBudget"/>.</summary>
    public static readonly TimeSpan DefaultReplayBudget = TimeSpan.FromSeconds(30);

    /// <summary>When replaying: no further attempt starts once this much time has gone by (default 30 s), so a replay
    /// that does not come back ends in bounded time. The first attempt always runs.</summary>
    public TimeSpan ReplayBudget { get; init; } = DefaultReplayBudget;

    /// <summary>After a failure is found (and shrunk), how many times the failing case, as generated (what its replay
    /// token runs), is run again to measure how often it fails again (<see cref="PropertyOutcome.Reproduced"/>); default
    /// 5, 0 turns it off. Not for a scripted case (driven step by step, it fails again every time), a case that hung (each
    /// re-run would wait out its bound) or a replay. See also <see cref="ReproductionBudget"/>.</summary>
    public int ReproductionRuns { get; init; } = 5;

    /// <summary>No further re-run of <see cref="ReproductionRuns"/> starts once this much time has gone by (default
    /// 3 s), so the measurement costs a red run little; the first always runs.</summary>
    public TimeSpan ReproductionBudget { get; init; } = TimeSpan.FromSeconds(3);

    /// <summary>Limits of each run.</summary>
    public WriterRunOptions Runner { get; init; } = WriterRunOptions.Default;

    /// <summary>How long shrinking may go on after the first failure before the smallest failing case so far is
    /// reported (default 10 s; candidates judge the real-time rules already broken in full at a short bound, so that
    /// buys many candidates).</summary>
    public TimeSpan ShrinkBudget { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>Whether a writer's failure is shrunk once per process (default true): a suite runs one property per
    /// invariant, each judging every invariant, so a broken writer fails most of them, and shrinking each failure again
    /// (up to <see cref="ShrinkBudget"/> apiece, longer where candidates wait out real-time bounds) is what made a
    /// broken writer's suite take minutes to end red. With this set, once one property has shrunk a failure of a writer
    /// (the same <see cref="Harness.Writers.FrameWriterFactory"/> by identity), the others report their first failing
    /// case as found, with its own replay token, and name the property that holds the shrunk one
    /// (<see cref="PropertyOutcome.ShrunkElsewhere"/>); the real-time rules the writer already broke at their full
    /// bound are judged at a short one there (<see cref="Running.WriterRunOptions.ProvenRules"/>). A property run alone
    /// shrinks as always. Replays are never affected.</summary>
    public bool ShrinkOncePerWriter { get; init; } = true;

    /// <summary>Documented defects of a third-party client, accepted for now (see <see cref="KnownDeviation"/>): the
    /// violations each covers do not fail a case, and the outcome counts them. Empty by default: use it only for a
    /// client you do not own, never to silence a writer you do.</summary>
    public IReadOnlyList<KnownDeviation> KnownDeviations { get; init; } = [];

    /// <summary>Stops the check: once it fires, no further case runs (each remaining one passes untried) and the
    /// outcome is marked <see cref="PropertyOutcome.Interrupted"/>. The case in progress runs to its end.</summary>
    public CancellationToken Cancellation { get; init; }

    /// <summary>The folder this property's failure report goes to
    /// (<see cref="Harness.Reports.ConformanceArtifacts.FolderFor"/>): if the writer crashes the process while the
    /// property runs, its crash report is written there as <c>summary.txt</c> (<see cref="CasesInFlight"/>). Null:
    /// printed only. The suites and <c>amqp-conformance run</c> set it.</summary>
    public string? ReportFolder { get; init; }

    /// <summary>How to replay a case of this property, given its token: appended to the replay line of a crash report,
    /// as callers append theirs to a failure's (<see cref="PropertyOutcome.Describe"/>). Null: the bare line.</summary>
    public Func<ReplayToken, string>? ReplayHint { get; init; }

    /// <summary>Called after each generated case with the number of cases run so far (not during shrinking). On several
    /// workers (<see cref="Parallel"/>): one call at a time, from the worker that judged the case, with the number of
    /// cases all the workers have judged so far.</summary>
    public Action<int>? OnCase { get; init; }

    /// <summary><see cref="DefaultCases"/>, or <c>AMQP_CONFORMANCE_CASES</c> when set; <c>AMQP_CONFORMANCE_REPLAY</c>,
    /// <c>AMQP_CONFORMANCE_SEED</c>, <c>AMQP_CONFORMANCE_SHARD</c> and <c>AMQP_CONFORMANCE_PARALLEL</c>
    /// (<see cref="Parallel"/>: N or <c>auto</c>) when set. A shard without a seed is refused: its cases would not be
    /// the same run's as the other shards'.</summary>
    /// <exception cref="FormatException">One of the variables is set to something unreadable.</exception>
    public static PropertyRunOptions FromEnvironment(int? defaultCases = null) =>
        FromVariables(Environment.GetEnvironmentVariable, defaultCases);

    /// <summary><see cref="FromEnvironment"/> over <paramref name="variable"/> instead of the process's environment
    /// (tests: the environment is the whole process's).</summary>
    internal static PropertyRunOptions FromVariables(Func<string, string?> variable, int? defaultCases = null)
    {
        string? cases = variable(CasesEnvironmentVariable);
        string? replay = variable(ReplayToken.EnvironmentVariable);
        string? seed = variable(SeedEnvironmentVariable);
        string? shard = variable(CaseShard.EnvironmentVariable);
        string? parallel = variable(ParallelEnvironmentVariable);
        int n = defaultCases ?? DefaultCases;
        if (!string.IsNullOrWhiteSpace(cases) && (!int.TryParse(cases, out n) || n < 1))
            throw new FormatException($"{CasesEnvironmentVariable}=\"{cases}\" is not a positive number of cases.");
        ulong? runSeed = null;
        if (!string.IsNullOrWhiteSpace(seed))
        {
            if (
                !ulong.TryParse(
                    seed,
                    System.Globalization.NumberStyles.None,
                    System.Globalization.CultureInfo.InvariantCulture,
                    out ulong s
                )
            )
                throw new FormatException(
                    $"{SeedEnvironmentVariable}=\"{seed}\" is not a seed (a number from 0 to {ulong.MaxValue})."
                );
            runSeed = s;
        }
        CaseShard? slice = null;
        if (!string.IsNullOrWhiteSpace(shard))
        {
            try
            {
                slice = CaseShard.Parse(shard);
            }
            catch (FormatException ex)
            {
                throw new FormatException($"{CaseShard.EnvironmentVariable}: {ex.Message}", ex);
            }
            if (runSeed is null)
                throw new FormatException(
                    $"{CaseShard.EnvironmentVariable}={shard} needs {SeedEnvironmentVariable} too: every shard of a run must generate the same cases."
                );
        }
        return new PropertyRunOptions
        {
            MaxTest = n,
            Replay = string.IsNullOrWhiteSpace(replay) ? null : ReplayToken.Parse(replay),
            Seed = runSeed,
            Shard = slice,
            Parallel = string.IsNullOrWhiteSpace(parallel) ? 1 : ParseParallel(parallel),
        };
    }

    /// <summary>Reads <see cref="ParallelEnvironmentVariable"/>: a number of workers (at least 1) or
    /// <c>auto</c>.</summary>
    private static int ParseParallel(string text)
    {
        if (string.Equals(text.Trim(), "auto", StringComparison.OrdinalIgnoreCase))
            return Environment.ProcessorCount;
        if (
            int.TryParse(
                text.Trim(),
                System.Globalization.NumberStyles.None,
                System.Globalization.CultureInfo.InvariantCulture,
                out int workers
            )
            && workers >= 1
        )
            return workers;
        throw new FormatException(
            $"{ParallelEnvironmentVariable}=\"{text}\" is not a number of workers: expected a number (at least 1) or auto (one per core)."
        );
    }
}
