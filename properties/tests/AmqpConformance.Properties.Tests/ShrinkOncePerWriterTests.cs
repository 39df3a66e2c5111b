using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Properties.Tests;

/// <summary>A suite's properties each judge every invariant, so a broken writer fails most of them: its failure is
/// shrunk once, by the first property that finds it, and the others report their first failing case with its own replay
/// token.</summary>
public sealed class ShrinkOncePerWriterTests
{
    [Fact]
    public void The_second_property_to_fail_reports_its_first_failing_case_unshrunk_and_names_the_shrunk_one()
    {
        var factory = FrameWriterFactory.Create(
            "WritesTwice:" + Guid.NewGuid(),
            c => new WritesTwiceWriter(c),
            WriterCompletion.AfterFlush
        );
        var options = new PropertyRunOptions { MaxTest = 20 };

        var first = ConformanceProperties.Check(factory, InvariantNames.Order, options);
        Assert.False(first.Holds);
        Assert.Null(first.ShrunkElsewhere);
        Assert.NotNull(first.FirstFailureAfter);

        var second = ConformanceProperties.Check(factory, InvariantNames.Bodies, options);
        Assert.False(second.Holds);
        Assert.Equal(0, second.Shrinks);
        Assert.Contains($"\"{InvariantNames.Order}\"", second.ShrunkElsewhere, StringComparison.Ordinal);
        Assert.Contains("Not shrunk", second.Describe(), StringComparison.Ordinal);
        Assert.NotNull(second.Replay);
        // Its own token replays its own case, which still fails.
        var replay = ConformanceProperties.Check(
            factory,
            InvariantNames.Bodies,
            options with
            {
                Replay = second.Replay,
                ShrinkBudget = TimeSpan.Zero,
            }
        );
        Assert.False(replay.Holds);
        Assert.Equal(second.Counterexample!.ToString(), replay.Counterexample!.ToString());
    }

    [Fact]
    public void A_property_shrinks_as_always_when_told_to_or_when_it_is_the_first()
    {
        var factory = FrameWriterFactory.Create(
            "WritesTwice:" + Guid.NewGuid(),
            c => new WritesTwiceWriter(c),
            WriterCompletion.AfterFlush
        );
        var first = ConformanceProperties.Check(factory, InvariantNames.Order, new PropertyRunOptions { MaxTest = 20 });
        var again = ConformanceProperties.Check(
            factory,
            InvariantNames.Bodies,
            new PropertyRunOptions { MaxTest = 20, ShrinkOncePerWriter = false }
        );
        Assert.Null(first.ShrunkElsewhere);
        Assert.Null(again.ShrunkElsewhere);
        Assert.False(again.Holds);
    }

    [Fact]
    public void A_real_time_rule_the_writer_already_broke_in_full_is_judged_at_the_short_bound_by_the_properties_after()
    {
        var factory = FrameWriterFactory.Create("NeverFlushes:" + Guid.NewGuid(), c => new NeverFlushesWriter(c));
        var first = ConformanceProperties.Check(
            factory,
            InvariantNames.Visibility,
            new PropertyRunOptions { MaxTest = 20, ShrinkBudget = TimeSpan.Zero }
        );
        var full = Assert.Single(first.Run!.Evidence.VisibilityLapses);
        Assert.Equal(AmqpConformance.Properties.Running.WriterRunOptions.Default.VisibilityBound, full.Bound);

        var second = ConformanceProperties.Check(
            factory,
            InvariantNames.Order,
            new PropertyRunOptions { MaxTest = 20 }
        );
        Assert.False(second.Holds);
        Assert.Contains("not-flushed", second.Verdict!.Violations.Select(v => v.Rule));
        Assert.All(second.Run!.Evidence.VisibilityLapses, lapse =>
            Assert.Equal(AmqpConformance.Properties.Running.WriterRunOptions.ProvenRuleBound, lapse.Bound)
        );
        Assert.Contains("judged at 250 ms", second.Describe(), StringComparison.Ordinal);

        // A writer that never broke the rule in full is judged at the full bound, even after another writer did.
        var other = FrameWriterFactory.Create("NeverFlushes:" + Guid.NewGuid(), c => new NeverFlushesWriter(c));
        var fresh = ConformanceProperties.Check(
            other,
            InvariantNames.Order,
            new PropertyRunOptions { MaxTest = 20, ShrinkBudget = TimeSpan.Zero }
        );
        Assert.All(fresh.Run!.Evidence.VisibilityLapses, lapse =>
            Assert.Equal(AmqpConformance.Properties.Running.WriterRunOptions.Default.VisibilityBound, lapse.Bound)
        );
    }

    [Fact]
    public void A_failure_shrunk_with_quick_bounds_is_reported_from_a_run_at_full_bounds()
    {
        // Shrink candidates judge not-flushed at 250 ms once the first failure showed it at 3 s; the report's run must
        // not.
        var factory = FrameWriterFactory.Create("NeverFlushes:" + Guid.NewGuid(), c => new NeverFlushesWriter(c));
        var outcome = ConformanceProperties.Check(
            factory,
            InvariantNames.Visibility,
            new PropertyRunOptions { MaxTest = 20, ShrinkBudget = TimeSpan.FromSeconds(5) }
        );
        Assert.False(outcome.Holds);
        Assert.Contains("not-flushed", outcome.Verdict!.Violations.Select(v => v.Rule));
        Assert.NotEmpty(outcome.Run!.Evidence.VisibilityLapses);
        Assert.All(outcome.Run.Evidence.VisibilityLapses, lapse =>
            Assert.Equal(AmqpConformance.Properties.Running.WriterRunOptions.Default.VisibilityBound, lapse.Bound)
        );
        Assert.Equal(outcome.Counterexample!.ToString(), outcome.Run.Scenario.ToString());
    }

    /// <summary>Broken: writes each command and completes its call without flushing it (the zoo's inline writer, no
    /// flush).</summary>
    private sealed class NeverFlushesWriter(WriterContext context) : InlineZooWriter(context, "never-flushes")
    {
        protected override ValueTask WriteAndFlushAsync(OutgoingCommand command)
        {
            WriteCommand(Context.Output, command, Context.FrameMax);
            return default;
        }
    }

    /// <summary>Broken: writes every command twice before its one flush, so every publish reaches the broker
    /// twice.</summary>
    private sealed class WritesTwiceWriter(WriterContext context) : InlineZooWriter(context, "writes-twice")
    {
        protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
        {
            WriteCommand(Context.Output, command, Context.FrameMax);
            await base.WriteAndFlushAsync(command).ConfigureAwait(false);
        }
    }
}
