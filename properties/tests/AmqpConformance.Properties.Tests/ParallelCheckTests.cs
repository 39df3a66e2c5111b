using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Properties.Tests;

/// <summary>A writer-level check on several workers (<see cref="PropertyRunOptions.Parallel"/>,
/// <c>AMQP_CONFORMANCE_PARALLEL</c>) reports what the check on one worker reports with the same seed: for a broken
/// writer the same failing case, counterexample, shrink and replay token (and, for the writer's next property, the same
/// unshrunk case naming the same shrunk one); for a correct writer every case once. No assertion here is on
/// time.</summary>
public sealed class ParallelCheckTests
{
    /// <summary>A seed whose first failure of <see cref="RefusesFrameMaxFactory"/> in "command-shape", over
    /// <see cref="Cases"/> cases, is neither the run's first case nor worker 1's of 3 (checked below): cases 2, 6 and 8
    /// fail, so workers 3 and 1 both have a failure, and the check must report worker 3's, the earlier one, even when
    /// worker 1's is found first (<see cref="FailureOrder"/>). In "order" cases 1 and 5 fail (workers 2 and 3).</summary>
    private const ulong Seed = 2;

    private const int Cases = 9;

    /// <summary>A deliberately broken factory, deterministic in the scenario alone: the inline reference writer, except
    /// for a frame_max that leaves 3 divided by 5, for which it makes no writer at all (it throws). Which cases a run
    /// fails is then fixed by the seed, and so is the shrink. Each instance has a name of its own, so
    /// <see cref="PropertyRunOptions.ShrinkOncePerWriter"/> sees each as another writer.</summary>
    private sealed class RefusesFrameMaxFactory(string tag, FailureOrder? order = null) : FrameWriterFactory
    {
        public override string Name { get; } = $"RefusesFrameMax-{tag}-{Guid.NewGuid():N}";

        public override IFrameWriter CreateWriter(WriterContext context)
        {
            if (context.FrameMax % 5 != 3)
                return WriterModes.Inline.CreateWriter(context);
            order?.Refusing(context.FrameMax);
            throw new NotSupportedException($"frame_max {context.FrameMax}: no writer for this one.");
        }
    }

    /// <summary>Makes a later case's failure come first: the first refusal of frame_max <paramref name="earlier"/> waits
    /// until frame_max <paramref name="later"/> has been refused. On one worker that would never end (the earlier case
    /// runs first), so it is used on several only, where the later case is another worker's.</summary>
    private sealed class FailureOrder(int earlier, int later)
    {
        private readonly ManualResetEventSlim _laterRefused = new();
        private int _held;

        /// <summary>Whether the earlier case's refusal waited for the later one's.</summary>
        public bool Forced { get; private set; }

        public void Refusing(int frameMax)
        {
            if (frameMax == later)
                _laterRefused.Set();
            else if (frameMax == earlier && Interlocked.Exchange(ref _held, 1) == 0)
                Forced = _laterRefused.Wait(TimeSpan.FromMinutes(2)); // only against a hang; Forced is asserted
        }
    }

    /// <summary>A shrink budget no shrink here reaches, so each shrink ends where the candidates run out, not where a
    /// busy machine's clock says.</summary>
    private static readonly PropertyRunOptions Broken = new()
    {
        MaxTest = Cases,
        Seed = Seed,
        ShrinkBudget = TimeSpan.FromMinutes(10),
    };

    private static void AssertSameFailure(PropertyOutcome one, PropertyOutcome parallel)
    {
        Assert.False(parallel.Holds, parallel.Describe());
        Assert.Equal(one.CasesRun, parallel.CasesRun);
        Assert.Equal(one.Counterexample!.ToString(), parallel.Counterexample!.ToString());
        Assert.Equal(one.Shrinks, parallel.Shrinks);
        Assert.Equal(one.Replay, parallel.Replay);
        Assert.Equal(one.ShrunkElsewhere, parallel.ShrunkElsewhere);
        Assert.Equal(
            one.Verdict!.Violations.Select(v => $"{v.Invariant}/{v.Rule}").Distinct(),
            parallel.Verdict!.Violations.Select(v => $"{v.Invariant}/{v.Rule}").Distinct()
        );
    }

    [Fact]
    public void A_broken_writer_on_three_workers_reports_the_failure_shrink_and_replay_of_one_worker()
    {
        var one = new RefusesFrameMaxFactory("one");
        // Case 2 (frame_max 226283, worker 3's first) fails only once case 6 (connection 2 at frame_max 8193, worker
        // 1's third) has failed: the later failure is found first, and the check must still report case 2's, shrunk,
        // and record only that shrink for the writer's next property.
        var order = new FailureOrder(226283, 8193);
        var three = new RefusesFrameMaxFactory("three", order);

        var sequential = ConformanceProperties.Check(one, InvariantNames.CommandShape, Broken);
        var parallel = ConformanceProperties.Check(three, InvariantNames.CommandShape, Broken with { Parallel = 3 });

        Assert.False(sequential.Holds, sequential.Describe());
        int failing = sequential.CasesRun - 1;
        Assert.True(failing > 0 && failing % 3 != 0, $"seed {Seed} fails at case {failing}: pick another");
        AssertSameFailure(sequential, parallel);
        Assert.True(order.Forced, "case 6 was never refused while case 2 waited");
        Assert.Null(parallel.ShrunkElsewhere);
        Assert.True(parallel.Shrinks > 0, parallel.Describe());
        Assert.Equal((3, Seed), (parallel.Workers, parallel.Seed));
        Assert.Equal(1, sequential.Workers);
        Assert.Contains("on 3 workers, seed 2", parallel.Describe(), StringComparison.Ordinal);

        // The writer's next property: one worker reports its first failure unshrunk, naming the shrink above; three
        // workers report the same, so only the winning worker's shrink was recorded for the writer.
        var sequentialOrder = ConformanceProperties.Check(one, InvariantNames.Order, Broken);
        var parallelOrder = ConformanceProperties.Check(three, InvariantNames.Order, Broken with { Parallel = 3 });
        Assert.False(sequentialOrder.Holds, sequentialOrder.Describe());
        Assert.NotNull(sequentialOrder.ShrunkElsewhere);
        Assert.Equal(0, sequentialOrder.Shrinks);
        AssertSameFailure(sequentialOrder, parallelOrder);
    }

    [Fact]
    public void A_ci_shard_on_two_workers_reports_what_the_shard_on_one_reports()
    {
        // The run's first failure is in the shard of 3 picked here, so that shard fails there, on one worker or two
        // (its cases split between shards K/6 and K+3/6 of the run).
        int failing =
            ConformanceProperties
                .Check(new RefusesFrameMaxFactory("whole"), InvariantNames.CommandShape, Broken)
                .CasesRun - 1;
        var shard = new CaseShard(failing % 3 + 1, 3);
        var options = Broken with { Shard = shard };

        var sequential = ConformanceProperties.Check(
            new RefusesFrameMaxFactory("one"),
            InvariantNames.CommandShape,
            options
        );
        var parallel = ConformanceProperties.Check(
            new RefusesFrameMaxFactory("two"),
            InvariantNames.CommandShape,
            options with
            {
                Parallel = 2,
            }
        );

        Assert.False(sequential.Holds, sequential.Describe());
        Assert.Equal(shard.CasesThrough(failing), sequential.CasesRun);
        AssertSameFailure(sequential, parallel);
        Assert.Equal(2, parallel.Workers);
    }

    [Fact]
    public void A_correct_writer_on_two_workers_runs_every_case_once_and_counts_them_as_one_worker_does()
    {
        var counts = new List<int>();
        var outcome = ConformanceProperties.Check(
            WriterModes.Background,
            InvariantNames.Order,
            new PropertyRunOptions
            {
                MaxTest = 12,
                Seed = 7,
                Parallel = 2,
                OnCase = counts.Add, // called one at a time
            }
        );

        Assert.True(outcome.Holds, outcome.Describe());
        Assert.Equal(12, outcome.CasesRun);
        Assert.Equal((2, 7UL), (outcome.Workers, outcome.Seed));
        Assert.Equal(Enumerable.Range(1, 12), counts);
        Assert.False(outcome.Interrupted);
    }

    [Fact]
    public void Without_a_seed_the_workers_share_one_they_draw_and_report()
    {
        var outcome = ConformanceProperties.Check(
            WriterModes.Background,
            InvariantNames.Order,
            new PropertyRunOptions { MaxTest = 4, Parallel = 2 }
        );
        Assert.True(outcome.Holds, outcome.Describe());
        Assert.Equal(4, outcome.CasesRun);
        Assert.NotNull(outcome.Seed);
        Assert.Equal(2, outcome.Workers);
    }

    [Fact]
    public void A_replay_runs_its_one_case_on_one_worker()
    {
        var factory = new RefusesFrameMaxFactory("replay");
        var failure = ConformanceProperties.Check(factory, InvariantNames.CommandShape, Broken with { Parallel = 3 });
        var replay = ConformanceProperties.Check(
            factory,
            InvariantNames.CommandShape,
            Broken with
            {
                Parallel = 3,
                Replay = failure.Replay,
                ShrinkBudget = TimeSpan.Zero,
            }
        );

        Assert.False(replay.Holds, replay.Describe());
        Assert.Equal(1, replay.Workers);
        Assert.Null(replay.Seed);
        Assert.Equal(1, replay.CasesRun);
    }

    [Fact]
    public void Workers_come_from_the_environment_as_a_number_or_auto()
    {
        static PropertyRunOptions Read(string? parallel, string? shard = null, string? seed = null) =>
            PropertyRunOptions.FromVariables(name =>
                name switch
                {
                    PropertyRunOptions.ParallelEnvironmentVariable => parallel,
                    CaseShard.EnvironmentVariable => shard,
                    PropertyRunOptions.SeedEnvironmentVariable => seed,
                    _ => null,
                }
            );

        Assert.Equal(1, Read(null).Parallel);
        Assert.Equal(1, Read(" ").Parallel);
        Assert.Equal(3, Read("3").Parallel);
        Assert.Equal(Environment.ProcessorCount, Read("auto").Parallel);
        Assert.Equal(Environment.ProcessorCount, Read(" AUTO ").Parallel);
        // With a CI shard: that shard's cases are cut further.
        var both = Read("2", "2/4", "9");
        Assert.Equal((2, new CaseShard(2, 4), 9UL), (both.Parallel, both.Shard, both.Seed));
        foreach (string bad in new[] { "0", "-1", "x", "2.5", "1/2" })
        {
            var error = Assert.Throws<FormatException>(() => Read(bad));
            Assert.Contains(
                $"{PropertyRunOptions.ParallelEnvironmentVariable}=\"{bad}\"",
                error.Message,
                StringComparison.Ordinal
            );
        }
        Assert.Throws<ArgumentOutOfRangeException>(() => new PropertyRunOptions { Parallel = 0 });
    }

    [Fact]
    public void The_merge_rule_places_a_shards_failure_in_the_run_and_orders_failures_by_it()
    {
        Assert.Equal(3, ShardMerge.FailingCase(null, 4));
        Assert.Equal(10, ShardMerge.FailingCase(new CaseShard(2, 3), 4)); // shard 2/3's cases: 1, 4, 7, 10, ...
        Assert.Equal(
            ["2/3 at 1", "1/3 at 3", "3/3 at 5"],
            ShardMerge
                .InRunOrder(new[] { (new CaseShard(1, 3), 2), (new CaseShard(3, 3), 2), (new CaseShard(2, 3), 1) }, f =>
                    ShardMerge.FailingCase(f.Item1, f.Item2)
                )
                .Select(f => $"{f.Item1} at {ShardMerge.FailingCase(f.Item1, f.Item2)}")
        );
        // A shard cut into parts: together its cases, each in one part.
        var shard = new CaseShard(2, 3);
        var parts = shard.Split(2);
        Assert.Equal([new CaseShard(2, 6), new CaseShard(5, 6)], parts);
        for (int i = 0; i < 60; i++)
            Assert.Equal(shard.Includes(i) ? 1 : 0, parts.Count(p => p.Includes(i)));
        Assert.Equal(4, shard.CasesThrough(10));
        Assert.Equal(0, shard.CasesThrough(0));
    }
}
