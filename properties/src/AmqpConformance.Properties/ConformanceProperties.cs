using System.Diagnostics;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Generators;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using FsCheck;
using FsCheck.Fluent;
using Microsoft.FSharp.Collections;
using Microsoft.FSharp.Core;

namespace AmqpConformance.Properties;

/// <summary>
/// One FsCheck property per invariant: "for every generated scenario, running it against the writer leaves evidence on
/// which every invariant holds". The invariant a property is named after only biases what it generates
/// (<see cref="ScenarioProfile.For"/>): each case is judged on all invariants, so nothing a case shows is thrown away.
/// Failing cases are shrunk to a small scenario and come back with their run, verdict and replay token; every run
/// counts the events it produced (<see cref="RunEvents"/>).
/// </summary>
public static partial class ConformanceProperties
{
    /// <summary>The property that draws from the mixed profile (<see cref="ScenarioProfile.Mixed"/>): the cheap way to
    /// put many cases through a writer, such as the 10,000-case false-positive check and the self-test.</summary>
    public const string AllAtOnce = "all";

    /// <summary>Checks <paramref name="invariant"/>'s property against writers from <paramref name="factory"/> at
    /// writer level, on the check's own thread (<see cref="CheckOnOwnThread"/>); completes with the outcome.</summary>
    /// <exception cref="ArgumentException">Unknown invariant (thrown at once).</exception>
    public static Task<PropertyOutcome> CheckAsync(
        FrameWriterFactory factory,
        string invariant,
        PropertyRunOptions? options = null
    )
    {
        ArgumentNullException.ThrowIfNull(factory);
        options ??= new PropertyRunOptions();
        var identity = factory.Identity;
        // The real-time rules this writer already broke at their full bound are judged quickly
        // (WriterRunOptions.ProvenRules) in the properties after the one that shrank its failure (they only have to end
        // red; their first failure is reported unshrunk), and for shrink candidates (the shrunk case is then confirmed
        // at full bounds before it is reported).
        bool later = options.ShrinkOncePerWriter && options.Replay is null && ShrunkFailures.Of(identity) is not null;
        return CheckOnOwnThread(
            factory.Name,
            identity,
            invariant,
            options,
            (scenario, candidate) =>
            {
                var runner =
                    later || candidate
                        ? options.Runner with
                        {
                            ProvenRules = ShrunkFailures.ProvenRules(identity),
                        }
                        : options.Runner;
                return WriterLevelRunner.RunAsync(factory, scenario, runner);
            },
            null
        );
    }

    /// <summary><see cref="CheckAsync(FrameWriterFactory, string, PropertyRunOptions?)"/> for a synchronous caller (a
    /// test method that returns nothing): blocks the calling thread until the check's own thread has ended, and nothing
    /// the check does waits for the calling thread.</summary>
    /// <exception cref="ArgumentException">Unknown invariant.</exception>
    public static PropertyOutcome Check(
        FrameWriterFactory factory,
        string invariant,
        PropertyRunOptions? options = null
    ) => CheckAsync(factory, invariant, options).GetAwaiter().GetResult();

    /// <summary>Checks <paramref name="invariant"/>'s property against <paramref name="client"/> at client level,
    /// through <paramref name="runner"/>'s fault proxy and fake broker, on the check's own thread
    /// (<see cref="CheckOnOwnThread"/>); completes with the outcome.</summary>
    /// <exception cref="ArgumentException">Unknown invariant (thrown at once).</exception>
    public static Task<PropertyOutcome> CheckAsync(
        Clients.ClientAdapter client,
        Clients.ClientLevelRunner runner,
        string invariant,
        PropertyRunOptions? options = null
    )
    {
        ArgumentNullException.ThrowIfNull(client);
        ArgumentNullException.ThrowIfNull(runner);
        options ??= new PropertyRunOptions();
        // A deviation scoped to other builds or settings of the client covers nothing here.
        options = options with
        {
            KnownDeviations = [.. options.KnownDeviations.Where(d => d.AppliesToClient(client))],
        };
        return CheckOnOwnThread(
            client.Name,
            (client.GetType(), client.Name),
            invariant,
            options,
            (scenario, _) => runner.RunAsync(client, scenario),
            ScenarioGenerators.ClientArbitraryFor(invariant)
        );
    }

    /// <summary>Checks <paramref name="invariant"/>'s property with any way of running a scenario (writer level, client
    /// level...), on the calling thread: <paramref name="run"/> is synchronous, so nothing here blocks on async
    /// code.</summary>
    /// <param name="subject">The name reported for what is being checked.</param>
    /// <param name="invariant">The property: an invariant's name (its generation profile) or
    /// <see cref="AllAtOnce"/>.</param>
    /// <param name="options">Cases, replay, limits.</param>
    /// <param name="run">Runs one scenario and returns its evidence; must not throw for anything the subject
    /// does.</param>
    /// <param name="arbitrary">The scenarios to draw from; defaults to the property's profile
    /// (<see cref="ScenarioProfile.For"/>).</param>
    /// <exception cref="ArgumentException">Unknown invariant.</exception>
    public static PropertyOutcome Check(
        string subject,
        string invariant,
        PropertyRunOptions options,
        Func<Scenario, RunResult> run,
        Arbitrary<Scenario>? arbitrary = null
    )
    {
        ArgumentNullException.ThrowIfNull(run);
        return CheckCore(subject, null, invariant, options, (scenario, _) => run(scenario), arbitrary);
    }

    /// <summary><see cref="Check(string, string, PropertyRunOptions, Func{Scenario, RunResult}, Arbitrary{Scenario}?)"/>,
    /// knowing what is checked by <paramref name="identity"/> across checks (null: nothing is shared with other
    /// checks). <paramref name="run"/> is told whether the scenario is a shrink candidate (whose failure is confirmed
    /// at full bounds before it is reported).</summary>
    private static PropertyOutcome CheckCore(
        string subject,
        object? identity,
        string invariant,
        PropertyRunOptions options,
        Func<Scenario, bool, RunResult> run,
        Arbitrary<Scenario>? arbitrary
    )
    {
        ArgumentNullException.ThrowIfNull(subject);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(run);
        RequireKnown(invariant);
        arbitrary ??= ScenarioGenerators.ArbitraryFor(
            invariant == AllAtOnce ? ScenarioProfile.Mixed : ScenarioProfile.For(invariant)
        );
        // FsCheck starts from a seed of ours, so the token of each case is known while it runs: a writer that crashes
        // the process gets a replay line too (CasesInFlight, UnhandledExceptionMonitor).
        var start = options.Seed is { } seed ? CaseReplayTokens.StartFor(seed, invariant) : CaseReplayTokens.NewStart();
        var capture = new CapturingRunner(options.OnCase);
        var config = Config
            .Quick.WithMaxTest(options.Replay is null ? options.MaxTest : 1)
            .WithRunner(capture)
            .WithName(invariant)
            .WithReplay(
                FSharpOption<Replay>.Some(
                    options.Replay is { } replay
                        ? new Replay(new Rnd(replay.Seed, replay.Gamma), FSharpOption<int>.Some(replay.Size))
                        : new Replay(start, FSharpOption<int>.None)
                )
            );
        UnhandledExceptionMonitor.EnsureProcessWide();
        using var slot = CasesInFlight.Begin(subject, invariant, options, start, config);
        string? shrunkElsewhere =
            identity is not null && options.ShrinkOncePerWriter && options.Replay is null
                ? ShrunkFailures.Of(identity)
                : null;
        var session = new CheckSession(invariant, options, run, slot)
        {
            SkipShrinking = shrunkElsewhere is not null,
            OnFailure =
                identity is null || options.Replay is not null
                    ? null
                    : verdict => ShrunkFailures.NoteBroken(identity, verdict.Violations.Select(v => v.Rule)),
        };
        FsCheck.Check.One(config, Prop.ForAll(arbitrary, (Func<Scenario, bool>)session.Holds));

        if (capture.Result is not TestResult.Failed failed)
            return session.Outcome(subject, capture.Cases - session.OutOfShard, 0, null, null);

        var shrunk = failed.Item3.Head as Scenario;
        var token = new ReplayToken(failed.Item6.Seed, failed.Item6.Gamma, failed.Item7); // Item6: the generator state of the failing case itself
        session.ConfirmShrunk(shrunk);
        if (session.LastVerdict is null && failed.Item4 is Outcome.Failed { Item: { } error })
            session.LastVerdict = new Verdict(
                invariant,
                [new Violation(invariant, "property-threw", error.ToString(), [], [])]
            );
        var counterexample = session.FellBackToFirstFailure
            ? failed.Item2.Head as Scenario
            : shrunk ?? failed.Item2.Head as Scenario;
        if (
            shrunkElsewhere is not null
            && identity is not null
            && ShrunkFailures.ProvenRules(identity) is { Count: > 0 } proven
        )
            shrunkElsewhere +=
                $"; the real-time rules it had already broken at their full bound ({string.Join(", ", proven.Order())}) were judged "
                + $"at {Running.WriterRunOptions.ProvenRuleBound.TotalMilliseconds:0} ms here";
        if (identity is not null && shrunkElsewhere is null && options.Replay is null && counterexample is not null)
            ShrunkFailures.Add(identity, invariant, counterexample.ToString());
        return session.Outcome(
            subject,
            failed.Item1.NumberOfTests - session.OutOfShard,
            session.FellBackToFirstFailure ? 0 : failed.Item1.NumberOfShrinks,
            counterexample,
            token
        ) with
        {
            ShrunkElsewhere = shrunkElsewhere,
        };
    }

    /// <summary>The state of one property check: judges each case on every invariant, filters accepted deviations,
    /// counts events, remembers the last failure, bounds shrinking, and retries a replayed case until it fails
    /// again.</summary>
    private sealed class CheckSession(
        string invariant,
        PropertyRunOptions options,
        Func<Scenario, bool, RunResult> run,
        CaseSlot slot
    )
    {
        private (RunResult Result, Verdict Verdict)? _firstFailure;
        private bool _lastFailureQuick;

        private readonly Stopwatch _elapsed = Stopwatch.StartNew();
        private readonly Dictionary<string, int> _knownSeen = [];
        private readonly RunEvents _events = new();
        private Stopwatch? _shrinking;
        private int _replayAttempts;
        private int _replayTried;
        private int _generated,
            _failedCase = -1,
            _shrinkCandidates;

        public RunResult? LastFailure { get; private set; }

        public bool Interrupted { get; private set; }

        public Verdict? LastVerdict { get; set; }

        /// <summary>Report the first failing case as found, without shrinking it
        /// (<see cref="PropertyRunOptions.ShrinkOncePerWriter"/>).</summary>
        public bool SkipShrinking { get; init; }

        /// <summary>Called with the verdict of every failing case.</summary>
        public Action<Verdict>? OnFailure { get; init; }

        /// <summary>Whether the shrunk case, found with quick bounds, did not fail again at full bounds, so the first
        /// failing case (judged at full bounds) is reported instead.</summary>
        public bool FellBackToFirstFailure { get; private set; }

        /// <summary>How many generated cases were another shard's (<see cref="PropertyRunOptions.Shard"/>) and passed
        /// untried.</summary>
        public int OutOfShard { get; private set; }

        /// <summary>Wall time at the end of the first failing case; null until one failed.</summary>
        public TimeSpan? FirstFailureAfter { get; private set; }

        public bool Holds(Scenario scenario)
        {
            // Shrinking a writer that hangs costs a call timeout per candidate: past the budget, stop shrinking (keep
            // the best so far). A case that hung left harness threads stuck inside the writer, and each candidate would
            // likely hang for the whole case bound again: the hung case is reported as it is.
            if (
                _shrinking is not null
                && (
                    SkipShrinking
                    || _shrinking.Elapsed > options.ShrinkBudget
                    || LastFailure?.Evidence.CaseHung is not null
                )
            )
                return true;
            if (options.Cancellation.IsCancellationRequested)
            {
                Interrupted = true;
                return true;
            }
            bool replaying = options.Replay is not null;
            int attempts = replaying && _shrinking is null ? Math.Max(1, options.ReplayAttempts) : 1;
            int generated = _shrinking is null && !replaying ? _generated++ : -1;
            if (generated >= 0 && options.Shard is { } shard && !shard.Includes(generated))
            {
                OutOfShard++;
                return true; // another shard's case: passes untried
            }
            var replayClock = Stopwatch.StartNew();
            for (int attempt = 1; attempt <= attempts; attempt++)
            {
                if (
                    attempt > 1
                    && (replayClock.Elapsed > options.ReplayBudget || options.Cancellation.IsCancellationRequested)
                )
                    break;
                if (_shrinking is not null)
                    slot.Start(scenario, CaseStage.Shrinking, ++_shrinkCandidates, 0, replaying ? -1 : _failedCase);
                else if (replaying)
                {
                    slot.Start(scenario, CaseStage.Replaying, attempt, attempts, -1);
                    _replayTried = attempt;
                }
                else
                    slot.Start(scenario, CaseStage.Generated, generated + 1, options.MaxTest, generated);
                RunResult result;
                Verdict verdict;
                bool candidate = _shrinking is not null;
                try
                {
                    (result, verdict) = Judge(scenario, candidate);
                }
                catch (Exception)
                {
                    // FsCheck counts a throwing case as a failure and shrinks it: what runs next are candidates, not
                    // new cases.
                    if (_shrinking is null)
                        (_failedCase, _shrinking, FirstFailureAfter) = (
                            generated,
                            Stopwatch.StartNew(),
                            _elapsed.Elapsed
                        );
                    throw;
                }
                finally
                {
                    slot.Finish();
                }
                if (_shrinking is null)
                    _events.Add(result.Events);
                if (verdict.Holds)
                    continue;
                OnFailure?.Invoke(verdict);
                if (_shrinking is null)
                    (_failedCase, FirstFailureAfter) = (generated, _elapsed.Elapsed);
                _shrinking ??= Stopwatch.StartNew();
                if (options.Replay is not null && _replayAttempts == 0)
                    _replayAttempts = attempt;
                (LastFailure, LastVerdict, _lastFailureQuick) = (result, verdict, candidate);
                _firstFailure ??= (result, verdict);
                return false;
            }
            return true;
        }

        /// <summary>Makes sure the reported run is the shrunk scenario's own (re-running it a few times if the last
        /// failure was another candidate's).</summary>
        public void ConfirmShrunk(Scenario? shrunk)
        {
            if (
                shrunk is null
                || (
                    LastFailure is not null
                    && !_lastFailureQuick
                    && LastFailure.Scenario.ToString() == shrunk.ToString()
                )
            )
                return;
            bool quick = _lastFailureQuick;
            LastFailure = null;
            LastVerdict = null;
            for (int attempt = 0; attempt < 3 && LastFailure is null; attempt++)
            {
                slot.Start(
                    shrunk,
                    CaseStage.ConfirmingShrunk,
                    attempt + 1,
                    3,
                    options.Replay is null ? _failedCase : -1
                );
                RunResult result;
                Verdict verdict;
                try
                {
                    (result, verdict) = Judge(shrunk, candidate: false);
                }
                catch (Exception ex)
                {
                    // The case threw (FsCheck saw the same when shrinking): report it as the property's failure, not
                    // the run's crash.
                    LastVerdict = new Verdict(
                        invariant,
                        [new Violation(invariant, "property-threw", ex.ToString(), [], [])]
                    );
                    continue;
                }
                finally
                {
                    slot.Finish();
                }
                if (!verdict.Holds)
                    (LastFailure, LastVerdict) = (result, verdict);
            }
            // Shrunk with quick bounds and not failing at full ones: report the first failing case, which was judged at
            // full bounds.
            if (LastFailure is null && LastVerdict is null && quick && _firstFailure is { } first)
                ((LastFailure, LastVerdict), FellBackToFirstFailure) = (first, true);
        }

        public PropertyOutcome Outcome(
            string subject,
            int cases,
            int shrinks,
            Scenario? counterexample,
            ReplayToken? token
        ) =>
            new(
                invariant,
                subject,
                cases,
                shrinks,
                counterexample,
                counterexample is null ? null : LastVerdict,
                counterexample is null ? null : LastFailure,
                token,
                _elapsed.Elapsed
            )
            {
                KnownDeviationsSeen = _knownSeen,
                Interrupted = Interrupted,
                Events = _events,
                ReplayAttemptsNeeded = _replayAttempts == 0 ? null : _replayAttempts,
                ReplayAttemptsWithoutFailure =
                    options.Replay is not null && counterexample is null && _replayTried > 0 ? _replayTried : null,
                FirstFailureAfter = counterexample is null ? null : FirstFailureAfter,
            };

        private (RunResult Result, Verdict Verdict) Judge(Scenario scenario, bool candidate)
        {
            var result = run(scenario, candidate);
            var verdict = result.Judgement.Combined(invariant);
            return (result, Filter(verdict, scenario, result.Evidence));
        }

        private Verdict Filter(Verdict verdict, Scenario scenario, ConformanceEvidence evidence)
        {
            if (verdict.Holds || options.KnownDeviations.Count == 0)
                return verdict;
            var judged = new List<Violation>();
            foreach (var violation in verdict.Violations)
            {
                if (options.KnownDeviations.FirstOrDefault(d => d.Covers(violation, scenario, evidence)) is { } known)
                    _knownSeen[known.Name] = _knownSeen.GetValueOrDefault(known.Name) + 1;
                else
                    judged.Add(violation);
            }
            return verdict with { Violations = judged };
        }
    }

    private sealed class CapturingRunner(Action<int>? onCase) : IRunner
    {
        public TestResult? Result { get; private set; }

        public int Cases { get; private set; }

        public void OnStartFixture(Type t) { }

        public void OnArguments(
            int ntest,
            FSharpList<object> args,
            FSharpFunc<int, FSharpFunc<FSharpList<object>, string>> every
        )
        {
            Cases = ntest;
            onCase?.Invoke(ntest);
        }

        public void OnShrink(FSharpList<object> args, FSharpFunc<FSharpList<object>, string> everyShrink) { }

        public void OnFinished(string name, TestResult testResult)
        {
            Result = testResult;
            if (testResult is TestResult.Passed passed)
                Cases = passed.Item1.NumberOfTests;
        }
    }
}
