using System.Diagnostics;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties;

public static partial class ConformanceProperties
{
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

        /// <summary>Set when this check is one worker of a check on several
        /// (<see cref="PropertyRunOptions.Parallel"/>).</summary>
        public WorkerSlot? Worker { get; init; }

        /// <summary>Whether another worker failed at an earlier case than this one's failure: this worker's outcome is
        /// not the run's, so it neither shrinks nor confirms.</summary>
        public bool Lost { get; private set; }

        /// <summary>How many of this shard's cases passed untried, being after a failure another worker found
        /// (<see cref="ParallelWorkers.Reached"/>).</summary>
        public int Stopped { get; private set; }

        /// <summary>The deviations accepted by the shrink candidates and the confirming runs (after the first
        /// failure), by name.</summary>
        public Dictionary<string, int> KnownAfterFailure { get; } = [];

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
                    || Lost
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
            bool stop = generated >= 0 && Worker is { } w && w.Workers.Reached(w.Index, generated);
            if (generated >= 0 && options.Shard is { } shard && !shard.Includes(generated))
            {
                OutOfShard++;
                return true; // another shard's case: passes untried
            }
            if (stop)
            {
                Stopped++;
                return true; // after a failure another worker found: a run on one worker never gets here
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
                Dictionary<string, int>? known;
                bool candidate = _shrinking is not null;
                try
                {
                    (result, verdict, known) = Judge(scenario, candidate);
                }
                catch (Exception)
                {
                    slot.Finish();
                    // FsCheck counts a throwing case as a failure and shrinks it: what runs next are candidates, not
                    // new cases.
                    if (_shrinking is null)
                    {
                        (_failedCase, FirstFailureAfter) = (generated, _elapsed.Elapsed);
                        Decide(generated, null, null);
                        _shrinking = Stopwatch.StartNew();
                    }
                    throw;
                }
                finally
                {
                    slot.Finish();
                }
                if (_shrinking is null)
                    _events.Add(result.Events);
                else if (known is not null)
                    ParallelWorkers.AddTo(KnownAfterFailure, known);
                if (verdict.Holds)
                {
                    if (generated >= 0 && Worker is { } passing)
                        passing.Workers.Passed(passing.Index, generated, result.Events, known);
                    continue;
                }
                OnFailure?.Invoke(verdict);
                if (_shrinking is null)
                {
                    (_failedCase, FirstFailureAfter) = (generated, _elapsed.Elapsed);
                    Decide(generated, result.Events, known);
                }
                _shrinking ??= Stopwatch.StartNew();
                if (options.Replay is not null && _replayAttempts == 0)
                    _replayAttempts = attempt;
                (LastFailure, LastVerdict, _lastFailureQuick) = (result, verdict, candidate);
                _firstFailure ??= (result, verdict);
                return false;
            }
            return true;
        }

        /// <summary>A worker's generated case <paramref name="generated"/> failed: waits to know whether it is the
        /// run's first failure (<see cref="ParallelWorkers.Failed"/>), and notes when it is not
        /// (<see cref="Lost"/>).</summary>
        private void Decide(int generated, RunEvents? events, Dictionary<string, int>? known)
        {
            if (generated >= 0 && Worker is { } w)
                Lost = !w.Workers.Failed(w.Index, generated, events, known);
        }

        /// <summary>Makes sure the reported run is the shrunk scenario's own (re-running it a few times if the last
        /// failure was another candidate's).</summary>
        public void ConfirmShrunk(Scenario? shrunk)
        {
            if (
                Lost
                || shrunk is null
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
                Dictionary<string, int>? known;
                try
                {
                    (result, verdict, known) = Judge(shrunk, candidate: false);
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
                if (known is not null)
                    ParallelWorkers.AddTo(KnownAfterFailure, known);
                if (!verdict.Holds)
                    (LastFailure, LastVerdict) = (result, verdict);
            }
            // Shrunk with quick bounds and not failing at full ones: report the first failing case, which was judged at
            // full bounds.
            if (LastFailure is null && LastVerdict is null && quick && _firstFailure is { } first)
                ((LastFailure, LastVerdict), FellBackToFirstFailure) = (first, true);
        }

        /// <summary>How often the failing case failed again when re-run (<see cref="MeasureReproduction"/>); null until
        /// measured.</summary>
        public Reproduction? Reproduced { get; private set; }

        /// <summary>Re-runs <paramref name="original"/>, the failing case as generated (what its replay token runs), up
        /// to <see cref="PropertyRunOptions.ReproductionRuns"/> times within
        /// <see cref="PropertyRunOptions.ReproductionBudget"/>, and counts the runs that break a rule its first failure
        /// broke. Not for a replay, a losing worker, a scripted case (it fails again every time) or a case that hung
        /// (each re-run would wait out its bound); a re-run that throws counts as not failing again.</summary>
        public void MeasureReproduction(Scenario? original)
        {
            if (
                Lost
                || original is null
                || original.Script is not null
                || options.Replay is not null
                || options.ReproductionRuns <= 0
                || _firstFailure is not { } first
                || first.Result.Evidence.CaseHung is not null
                || first.Result.Scenario.ToString() != original.ToString()
            )
                return;
            var rules = first.Verdict.Violations.Select(v => v.Rule).ToHashSet(StringComparer.Ordinal);
            var clock = Stopwatch.StartNew();
            int runs = 0,
                failed = 0;
            for (; runs < options.ReproductionRuns; runs++)
            {
                if (
                    runs > 0
                    && (clock.Elapsed > options.ReproductionBudget || options.Cancellation.IsCancellationRequested)
                )
                    break;
                slot.Start(original, CaseStage.Reproducing, runs + 1, options.ReproductionRuns, _failedCase);
                try
                {
                    var (_, verdict, _) = Judge(original, candidate: false);
                    if (verdict.Violations.Any(v => rules.Contains(v.Rule)))
                        failed++;
                }
                catch (Exception)
                {
                    // Another failure than the one found: not this one again.
                }
                finally
                {
                    slot.Finish();
                }
            }
            Reproduced = new Reproduction(failed, runs);
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
                Reproduced = counterexample is null ? null : Reproduced,
                ReplayAttemptsWithoutFailure =
                    options.Replay is not null && counterexample is null && _replayTried > 0 ? _replayTried : null,
                FirstFailureAfter = counterexample is null ? null : FirstFailureAfter,
                Seed = options.Replay is null ? options.Seed : null,
            };

        /// <summary>Runs and judges <paramref name="scenario"/>; also returns the deviations the verdict accepted in
        /// it (null: none), which are added to the outcome's count too.</summary>
        private (RunResult Result, Verdict Verdict, Dictionary<string, int>? Known) Judge(
            Scenario scenario,
            bool candidate
        )
        {
            var result = run(scenario, candidate);
            var verdict = result.Judgement.Combined(invariant);
            var (filtered, known) = Filter(verdict, scenario, result.Evidence);
            return (result, filtered, known);
        }

        private (Verdict Verdict, Dictionary<string, int>? Known) Filter(
            Verdict verdict,
            Scenario scenario,
            ConformanceEvidence evidence
        )
        {
            if (verdict.Holds || options.KnownDeviations.Count == 0)
                return (verdict, null);
            var judged = new List<Violation>();
            var seen = new Dictionary<string, int>();
            foreach (var violation in verdict.Violations)
            {
                if (options.KnownDeviations.FirstOrDefault(d => d.Covers(violation, scenario, evidence)) is { } known)
                    seen[known.Name] = seen.GetValueOrDefault(known.Name) + 1;
                else
                    judged.Add(violation);
            }
            ParallelWorkers.AddTo(_knownSeen, seen);
            return (verdict with { Violations = judged }, seen.Count == 0 ? null : seen);
        }
    }
}
