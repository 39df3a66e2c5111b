using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Generators;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Tests;

/// <summary>After a failure is found, the failing case is re-run as generated and the report says how often it failed
/// again (<see cref="PropertyOutcome.Reproduced"/>): every time for a writer that breaks it every time, only some times
/// for one whose failure comes and goes; never measured for a scripted case or when turned off.</summary>
public sealed class ReproductionTests
{
    /// <summary>Cases of one connection, publishes only (a dropped heartbeat or method call would break another rule
    /// than a dropped publish), no body owners; scripted with probability <paramref name="scripted"/>.</summary>
    private static FsCheck.Arbitrary<Scenario> PublishesOnly(string name, double scripted) =>
        FsCheck.Fluent.Arb.From(
            ScenarioGenerators.For(
                ScenarioProfile.Mixed with
                {
                    Name = name,
                    Scripted = scripted,
                    Connections = 0,
                    Heartbeats = 0,
                    Methods = 0,
                    Owners = 0,
                }
            )
        );

    /// <summary>Free-running cases only.</summary>
    private static readonly FsCheck.Arbitrary<Scenario> FreeRunning = PublishesOnly("free-running", scripted: 0);

    /// <summary>Claims its third call done without writing it (a lost publish), when <paramref name="drops"/>.</summary>
    private sealed class DropsThirdCall(IFrameWriter inner, bool drops) : IFrameWriter
    {
        private int _calls;

        public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default) =>
            drops && Interlocked.Increment(ref _calls) == 3
                ? ValueTask.CompletedTask
                : inner.WriteAsync(command, cancellationToken);

        public ValueTask DisposeAsync() => inner.DisposeAsync();
    }

    private static PropertyOutcome Check(
        Func<int, bool> drops,
        FsCheck.Arbitrary<Scenario> arbitrary,
        int reproductionRuns = 5
    )
    {
        int writers = 0;
        var factory = FrameWriterFactory.Create("drops-third-call", context => new DropsThirdCall(
            WriterModes.Inline.CreateWriter(context),
            drops(Interlocked.Increment(ref writers))
        ));
        return ConformanceProperties.Check(
            factory.Name,
            InvariantNames.Order,
            new PropertyRunOptions
            {
                MaxTest = 200,
                Seed = 7,
                ShrinkBudget = TimeSpan.Zero,
                ReproductionRuns = reproductionRuns,
                ReproductionBudget = TimeSpan.FromMinutes(5),
            },
            scenario => WriterLevelRunner.RunAsync(factory, scenario).GetAwaiter().GetResult(),
            arbitrary
        );
    }

    [Fact]
    public void A_failure_that_comes_back_every_time_is_reported_so()
    {
        var outcome = Check(_ => true, FreeRunning);
        Assert.False(outcome.Holds);
        Assert.Equal(new Reproduction(5, 5), outcome.Reproduced);
        Assert.Contains("Re-run 5 time(s) when found, the case failed again every time.", outcome.Describe());
    }

    [Fact]
    public void A_failure_that_comes_and_goes_is_reported_as_depending_on_timing_with_its_rate()
    {
        // Every other writer drops its third call: the re-runs of the failing case fail again two or three times in five.
        var outcome = Check(writer => writer % 2 == 1, FreeRunning);
        Assert.False(outcome.Holds);
        Assert.NotNull(outcome.Reproduced);
        Assert.Equal(5, outcome.Reproduced.Runs);
        Assert.InRange(outcome.Reproduced.Failed, 2, 3);
        Assert.Contains(
            $"Re-run 5 time(s) when found, the case failed again {outcome.Reproduced.Failed} time(s): the failure depends on timing",
            outcome.Describe()
        );
    }

    [Fact]
    public void Scripted_cases_and_a_check_that_turns_it_off_measure_nothing()
    {
        var scripted = PublishesOnly("scripted", scripted: 1);
        var outcome = Check(_ => true, scripted);
        Assert.False(outcome.Holds);
        Assert.NotNull(outcome.Counterexample?.Script);
        Assert.Null(outcome.Reproduced);
        Assert.DoesNotContain("when found", outcome.Describe(), StringComparison.Ordinal);

        var off = Check(_ => true, FreeRunning, reproductionRuns: 0);
        Assert.False(off.Holds);
        Assert.Null(off.Reproduced);
    }
}
