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

    /// <summary>Called after each generated case with the number of cases run so far (not during shrinking).</summary>
    public Action<int>? OnCase { get; init; }

    /// <summary><see cref="DefaultCases"/>, or <c>AMQP_CONFORMANCE_CASES</c> when set; <c>AMQP_CONFORMANCE_REPLAY</c>,
    /// <c>AMQP_CONFORMANCE_SEED</c> and <c>AMQP_CONFORMANCE_SHARD</c> when set. A shard without a seed is refused: its
    /// cases would not be the same run's as the other shards'.</summary>
    /// <exception cref="FormatException">One of the variables is set to something unreadable.</exception>
    public static PropertyRunOptions FromEnvironment(int? defaultCases = null)
    {
        string? cases = Environment.GetEnvironmentVariable(CasesEnvironmentVariable);
        string? replay = Environment.GetEnvironmentVariable(ReplayToken.EnvironmentVariable);
        string? seed = Environment.GetEnvironmentVariable(SeedEnvironmentVariable);
        string? shard = Environment.GetEnvironmentVariable(CaseShard.EnvironmentVariable);
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
        };
    }
}
