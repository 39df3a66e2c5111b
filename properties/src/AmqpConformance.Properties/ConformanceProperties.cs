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
    /// writer level, on the check's own thread (<see cref="CheckOnOwnThread"/>), or on
    /// <see cref="PropertyRunOptions.Parallel"/> threads of its own, one per worker; completes with the
    /// outcome.</summary>
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
            (scenario, candidate, notes) =>
            {
                var runner =
                    later || candidate
                        ? options.Runner with
                        {
                            ProvenRules = notes?.ProvenRules() ?? ShrunkFailures.ProvenRules(identity),
                        }
                        : options.Runner;
                return WriterLevelRunner.RunAsync(factory, scenario, runner);
            },
            null,
            parallel: true
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
    /// (<see cref="CheckOnOwnThread"/>), one case at a time (the runner has one proxy: its cases cannot run side by
    /// side, and <see cref="PropertyRunOptions.Parallel"/> is ignored); completes with the outcome.</summary>
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
            (scenario, _, _) => runner.RunAsync(client, scenario),
            ScenarioGenerators.ClientArbitraryFor(invariant),
            parallel: false
        );
    }

    /// <summary>Checks <paramref name="invariant"/>'s property with any way of running a scenario (writer level, client
    /// level...), on the calling thread, one case at a time (<see cref="PropertyRunOptions.Parallel"/> is ignored:
    /// <paramref name="run"/> need not be safe to call from several threads): <paramref name="run"/> is synchronous, so
    /// nothing here blocks on async code.</summary>
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
        return CheckCore(subject, null, invariant, options, (scenario, _, _) => run(scenario), arbitrary, worker: null);
    }

    /// <summary><see cref="Check(string, string, PropertyRunOptions, Func{Scenario, RunResult}, Arbitrary{Scenario}?)"/>,
    /// knowing what is checked by <paramref name="identity"/> across checks (null: nothing is shared with other
    /// checks). <paramref name="run"/> is told whether the scenario is a shrink candidate (whose failure is confirmed
    /// at full bounds before it is reported), and what the check knows of the writer's failures (null without an
    /// identity). <paramref name="worker"/>: this check is one worker of a check on several (its shard is
    /// <paramref name="options"/>' <see cref="PropertyRunOptions.Shard"/>); null for a check on its own.</summary>
    private static PropertyOutcome CheckCore(
        string subject,
        object? identity,
        string invariant,
        PropertyRunOptions options,
        Func<Scenario, bool, ShrinkNotes?, RunResult> run,
        Arbitrary<Scenario>? arbitrary,
        WorkerSlot? worker
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
        var capture = new CapturingRunner(worker is null ? options.OnCase : null); // workers: ParallelWorkers reports
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
        ThreadPoolHeadroom.Ensure(); // the test host holds pool threads of its own: cases must not wait for new ones
        using var slot = CasesInFlight.Begin(subject, invariant, options, start, config);
        var notes = worker?.Notes ?? (identity is null ? null : new ShrinkNotes(identity, deferred: false));
        string? shrunkElsewhere =
            worker is not null ? worker.ShrunkElsewhere
            : identity is not null && options.ShrinkOncePerWriter && options.Replay is null
                ? ShrunkFailures.Of(identity)
            : null;
        var session = new CheckSession(
            invariant,
            options,
            (scenario, candidate) => run(scenario, candidate, notes),
            slot
        )
        {
            SkipShrinking = shrunkElsewhere is not null,
            OnFailure =
                notes is null || options.Replay is not null
                    ? null
                    : verdict => notes.NoteBroken(verdict.Violations.Select(v => v.Rule)),
            Worker = worker,
        };
        FsCheck.Check.One(config, Prop.ForAll(arbitrary, (Func<Scenario, bool>)session.Holds));

        if (capture.Result is not TestResult.Failed failed)
            return session.Outcome(subject, capture.Cases - session.OutOfShard - session.Stopped, 0, null, null);

        var shrunk = failed.Item3.Head as Scenario;
        var token = new ReplayToken(failed.Item6.Seed, failed.Item6.Gamma, failed.Item7); // Item6: the generator state of the failing case itself
        session.ConfirmShrunk(shrunk);
        session.MeasureReproduction(failed.Item2.Head as Scenario);
        if (session.LastVerdict is null && failed.Item4 is Outcome.Failed { Item: { } error })
            session.LastVerdict = new Verdict(
                invariant,
                [new Violation(invariant, "property-threw", error.ToString(), [], [])]
            );
        var counterexample = session.FellBackToFirstFailure
            ? failed.Item2.Head as Scenario
            : shrunk ?? failed.Item2.Head as Scenario;
        if (shrunkElsewhere is not null && notes?.ProvenRules() is { Count: > 0 } proven)
            shrunkElsewhere +=
                $"; the real-time rules it had already broken at their full bound ({string.Join(", ", proven.Order())}) were judged "
                + $"at {Running.WriterRunOptions.ProvenRuleBound.TotalMilliseconds:0} ms here";
        if (worker is not null)
            worker.KnownAfterFailure = session.KnownAfterFailure;
        if (notes is not null && shrunkElsewhere is null && options.Replay is null && counterexample is not null)
            notes.Add(invariant, counterexample.ToString());
        return session.Outcome(
            subject,
            failed.Item1.NumberOfTests - session.OutOfShard - session.Stopped,
            session.FellBackToFirstFailure ? 0 : failed.Item1.NumberOfShrinks,
            counterexample,
            token
        ) with
        {
            ShrunkElsewhere = shrunkElsewhere,
        };
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
