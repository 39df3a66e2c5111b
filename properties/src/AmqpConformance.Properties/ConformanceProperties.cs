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
/// One FsCheck property per invariant: "for every generated scenario, running it against the writer leaves evidence on which
/// the invariant holds". Failing cases are shrunk to a small scenario and come back with their run, verdict and replay token.
/// </summary>
public static class ConformanceProperties
{
    /// <summary>The pseudo-invariant that checks every invariant on each case at once (one run per case instead of nine):
    /// the cheap way to put many cases through a writer, such as the 10,000-case false-positive check.</summary>
    public const string AllAtOnce = "all";

    /// <summary>Checks <paramref name="invariant"/> against writers from <paramref name="factory"/> at writer level.</summary>
    /// <exception cref="ArgumentException">Unknown invariant.</exception>
    public static PropertyOutcome Check(FrameWriterFactory factory, string invariant, PropertyRunOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(factory);
        options ??= new PropertyRunOptions();
        var runner = options.Runner;
        return Check(factory.Name, invariant, options,
            scenario => WriterLevelRunner.RunAsync(factory, scenario, runner).GetAwaiter().GetResult());
    }

    /// <summary>Checks <paramref name="invariant"/> against <paramref name="client"/> at client level, through
    /// <paramref name="runner"/>'s fault proxy and fake broker.</summary>
    public static PropertyOutcome Check(Clients.ClientAdapter client, Clients.ClientLevelRunner runner, string invariant, PropertyRunOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(client);
        ArgumentNullException.ThrowIfNull(runner);
        options ??= new PropertyRunOptions();
        return Check(client.Name, invariant, options, scenario => runner.RunAsync(client, scenario).GetAwaiter().GetResult(), ScenarioGenerators.ClientArbitrary);
    }

    /// <summary>Checks <paramref name="invariant"/> with any way of running a scenario (writer level, client level...).</summary>
    /// <param name="subject">The name reported for what is being checked.</param>
    /// <param name="invariant">The invariant to check.</param>
    /// <param name="options">Cases, replay, limits.</param>
    /// <param name="run">Runs one scenario and returns its evidence; must not throw for anything the subject does.</param>
    /// <param name="arbitrary">The scenarios to draw from; defaults to <see cref="ScenarioGenerators.Arbitrary"/>
    /// (<see cref="ScenarioGenerators.StalledArbitrary"/> for backpressure).</param>
    public static PropertyOutcome Check(string subject, string invariant, PropertyRunOptions options, Func<Scenario, RunResult> run,
        Arbitrary<Scenario>? arbitrary = null)
    {
        ArgumentNullException.ThrowIfNull(subject);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(run);
        IInvariantChecker checker = invariant == AllAtOnce ? new AllCheckers() : InvariantCheckers.For(invariant);
        arbitrary ??= invariant == InvariantNames.Backpressure ? ScenarioGenerators.StalledArbitrary : ScenarioGenerators.Arbitrary;
        var stopwatch = Stopwatch.StartNew();
        RunResult? lastFailure = null;
        Verdict? lastVerdict = null;
        Stopwatch? shrinking = null;
        var knownSeen = new Dictionary<string, int>();
        bool Holds(Scenario scenario)
        {
            // Shrinking a writer that hangs costs a call timeout per candidate: past the budget, stop shrinking (keep the best so far).
            if (shrinking is not null && shrinking.Elapsed > options.ShrinkBudget) return true;
            var result = run(scenario);
            var verdict = Filter(checker.Check(result.Evidence, WireAssembly.From(result.Evidence)), scenario);
            if (!verdict.Holds)
            {
                shrinking ??= Stopwatch.StartNew();
                lastFailure = result;
                lastVerdict = verdict;
            }
            return verdict.Holds;
        }

        Verdict Filter(Verdict verdict, Scenario scenario)
        {
            if (verdict.Holds) return verdict;
            if (options.KnownScenarioDeviations.FirstOrDefault(d => d.AppliesTo(scenario)) is { } covering)
            {
                knownSeen[covering.Name] = knownSeen.GetValueOrDefault(covering.Name) + 1;
                return verdict with { Violations = [] };
            }
            if (options.KnownDeviations.Count == 0) return verdict;
            foreach (var known in verdict.Violations.Where(v => options.KnownDeviations.ContainsKey(v.Rule)))
                knownSeen[known.Rule] = knownSeen.GetValueOrDefault(known.Rule) + 1;
            return verdict with { Violations = [.. verdict.Violations.Where(v => !options.KnownDeviations.ContainsKey(v.Rule))] };
        }

        var capture = new CapturingRunner(options.OnCase);
        var config = Config.Quick.WithMaxTest(options.Replay is null ? options.MaxTest : 1).WithRunner(capture).WithName(invariant);
        if (options.Replay is { } replay)
            config = config.WithReplay(FSharpOption<Replay>.Some(new Replay(new Rnd(replay.Seed, replay.Gamma), FSharpOption<int>.Some(replay.Size))));
        FsCheck.Check.One(config, Prop.ForAll(arbitrary, (Func<Scenario, bool>)Holds));

        if (capture.Result is not TestResult.Failed failed)
            return new PropertyOutcome(invariant, subject, capture.Cases, 0, null, null, null, null, stopwatch.Elapsed) { KnownDeviationsSeen = knownSeen };

        var shrunk = failed.Item3.Head as Scenario;
        var token = new ReplayToken(failed.Item6.Seed, failed.Item6.Gamma, failed.Item7); // Item6: the generator state of the failing case itself
        if (shrunk is not null && (lastFailure is null || lastFailure.Scenario.ToString() != shrunk.ToString()))
        {
            lastFailure = null;
            lastVerdict = null;
            for (int attempt = 0; attempt < 3 && lastFailure is null; attempt++)
            {
                var again = run(shrunk);
                var verdict = Filter(checker.Check(again.Evidence, WireAssembly.From(again.Evidence)), shrunk);
                if (!verdict.Holds) (lastFailure, lastVerdict) = (again, verdict);
            }
        }
        if (lastVerdict is null && failed.Item4 is Outcome.Failed { Item: { } error })
            lastVerdict = new Verdict(invariant, [new Violation(invariant, "property-threw", error.ToString(), [], [])]);
        return new PropertyOutcome(invariant, subject, failed.Item1.NumberOfTests, failed.Item1.NumberOfShrinks,
            shrunk ?? failed.Item2.Head as Scenario, lastVerdict, lastFailure, token, stopwatch.Elapsed) { KnownDeviationsSeen = knownSeen };
    }

    private sealed class AllCheckers : IInvariantChecker
    {
        public string Invariant => AllAtOnce;

        public Verdict Check(ConformanceEvidence evidence, WireAssembly wire) =>
            new(AllAtOnce, [.. InvariantCheckers.All.SelectMany(c => c.Check(evidence, wire).Violations)]);
    }

    private sealed class CapturingRunner(Action<int>? onCase) : IRunner
    {
        public TestResult? Result { get; private set; }

        public int Cases { get; private set; }

        public void OnStartFixture(Type t) { }

        public void OnArguments(int ntest, FSharpList<object> args, FSharpFunc<int, FSharpFunc<FSharpList<object>, string>> every)
        {
            Cases = ntest;
            onCase?.Invoke(ntest);
        }

        public void OnShrink(FSharpList<object> args, FSharpFunc<FSharpList<object>, string> everyShrink) { }

        public void OnFinished(string name, TestResult testResult)
        {
            Result = testResult;
            if (testResult is TestResult.Passed passed) Cases = passed.Item1.NumberOfTests;
        }
    }
}
