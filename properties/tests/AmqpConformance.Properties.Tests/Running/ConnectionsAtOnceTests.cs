using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Generators;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>A case on several connections runs one writer per connection from the same factory, at once, each judged on
/// every invariant, and reports the connection that failed: so a writer that shares state between its instances is
/// caught, and is not caught on one connection.</summary>
public sealed class ConnectionsAtOnceTests
{
    private static Scenario TwoFrameBodies(int connections) =>
        new(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(4089), new CallStep(6000)],
                [new CallStep(6000)],
            ],
            FaultPlan.Empty,
            Seed: 21
        )
        {
            Connections = connections,
        };

    [Theory]
    [InlineData("Background")]
    [InlineData("Inline")]
    [InlineData("Coalescing")]
    public async Task Each_connection_runs_a_writer_of_its_own_and_the_reference_writers_hold_on_every_one(string mode)
    {
        var created = 0;
        var reference = WriterModes.FromName(mode)!;
        var counting = FrameWriterFactory.Create(
            mode,
            c =>
            {
                Interlocked.Increment(ref created);
                return reference.CreateWriter(c);
            },
            reference.Completion
        );

        var result = await WriterLevelRunner.RunAsync(counting, TwoFrameBodies(3));

        Assert.Equal(3, created);
        Assert.Equal(0, result.Connection);
        Assert.Equal(2, result.OtherConnections.Count);
        Assert.Equal(3, result.Scenario.Connections);
        foreach (var connection in (RunResult[])[result, .. result.OtherConnections])
        {
            Assert.All(connection.CheckAll(), v => Assert.True(v.Holds, $"{mode} {connection.Connection}: {v}"));
            Assert.Equal(3, connection.Evidence.Calls.Count);
            Assert.Equal(1, connection.Events[RunEvent.ConnectionsAtOnce]);
        }
        Assert.Equal(
            [4096, 8192, 12288],
            ((RunResult[])[result, .. result.OtherConnections])
                .OrderBy(r => r.Connection)
                .Select(r => r.ConnectionScenario.FrameMax)
        );
    }

    [Fact]
    public async Task A_writer_whose_instances_share_a_frame_split_cache_fails_on_two_connections_and_holds_on_one()
    {
        var factory = ZooWriters.FromName("Zoo:SharedFrameSplitCache")!.Factory;

        var alone = await WriterLevelRunner.RunAsync(factory, TwoFrameBodies(1));
        var together = await WriterLevelRunner.RunAsync(factory, TwoFrameBodies(2));

        Assert.All(alone.CheckAll(), v => Assert.True(v.Holds, v.ToString()));
        Assert.Empty(alone.OtherConnections);
        var violations = together.Judgement.Violations.ToList();
        Assert.Contains(violations, v => v.Rule is "body-frame-not-full" or "frame-exceeds-frame-max");
        Assert.Single(together.OtherConnections);
        Assert.Equal(together.Connection == 0 ? 4096 : 8192, together.ConnectionScenario.FrameMax);
        Assert.True(together.OtherConnections[0].Connection != together.Connection);
    }

    [Fact]
    public void A_failure_says_on_which_connection_and_shrinks_no_further_than_two()
    {
        var factory = ZooWriters.FromName("Zoo:SharedFrameSplitCache")!.Factory;
        var folder = Directory.CreateTempSubdirectory("amqpc-connections-").FullName;
        try
        {
            var outcome = ConformanceProperties.Check(
                factory.Name,
                Harness.Verdicts.InvariantNames.CommandShape,
                new PropertyRunOptions { MaxTest = 1, ReportFolder = folder },
                s => WriterLevelRunner.RunAsync(factory, s).GetAwaiter().GetResult(),
                FsCheck.Fluent.Arb.From(FsCheck.Fluent.Gen.Constant(TwoFrameBodies(2)), ScenarioShrinker.Shrink)
            );
            Assert.False(outcome.Holds);
            Assert.Equal(2, outcome.Counterexample!.Connections);
            string description = outcome.Describe();
            Assert.Contains("Violations, on connection ", description, StringComparison.Ordinal);
            Assert.Contains(" of 2 (its own seed=", description, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    public void Another_connection_runs_the_same_calls_with_bodies_of_its_own_and_a_larger_frame_max()
    {
        var s = TwoFrameBodies(3);
        Assert.Same(s, s.ForConnection(0));
        var second = s.ForConnection(1);
        Assert.Equal(s.Publishers, second.Publishers);
        Assert.NotEqual(s.Seed, second.Seed);
        Assert.InRange(second.Seed, 0, 1_000_000);
        Assert.Equal(8192, second.FrameMax);
        Assert.Equal(12288, s.ForConnection(2).FrameMax);
        Assert.Equal(0, (s with { FrameMax = 0 }).ForConnection(2).FrameMax);
        Assert.Throws<ArgumentOutOfRangeException>(() => s.ForConnection(3));
        Assert.Contains(" connections=3 ", s.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain("connections=", TwoFrameBodies(1).ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void A_case_on_several_connections_shrinks_to_one_first()
    {
        var shrunk = ScenarioShrinker.Shrink(TwoFrameBodies(3)).Take(2).ToList();
        Assert.Equal([1, 2], shrunk.Select(s => s.Connections));
        Assert.DoesNotContain(ScenarioShrinker.Shrink(TwoFrameBodies(1)), s => s.Connections != 1);
    }
}
