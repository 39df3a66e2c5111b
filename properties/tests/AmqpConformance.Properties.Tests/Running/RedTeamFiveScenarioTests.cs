using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>What the fifth red-team round's misses brought in: a rule on the first disposal's exception, and bodies past 1 MiB; each
/// with the zoo writer that only it catches.</summary>
public sealed class RedTeamFiveScenarioTests
{
    [Fact]
    public async Task A_disposal_that_throws_the_fault_which_stopped_the_writer_is_judged_and_reference_writers_do_not_throw()
    {
        var broken = ZooWriters.FromName("Zoo:DisposeRethrowsFault")!.Factory;
        var scenario = new Scenario(4096, ChannelLayout.OwnChannel, [[new PublishStep(10), new PublishStep(20)]], FaultPlan.Empty)
        {
            Script = [ScriptAction.Call(0), ScriptAction.Reset, ScriptAction.Call(0), ScriptAction.Dispose],
        };
        var lifecycle = (await WriterLevelRunner.RunAsync(broken, scenario)).Check(InvariantNames.Lifecycle);
        Assert.Contains("TransportResetException", Assert.Single(lifecycle.Violations, v => v.Rule == "dispose-threw").Message, StringComparison.Ordinal);
        var healthy = scenario with { Script = [ScriptAction.Call(0), ScriptAction.Call(0), ScriptAction.Dispose] };
        Assert.True((await WriterLevelRunner.RunAsync(broken, healthy)).Check(InvariantNames.Lifecycle).Holds);
        foreach (var mode in new[] { WriterModes.Background, WriterModes.Inline, WriterModes.Coalescing })
            Assert.DoesNotContain((await WriterLevelRunner.RunAsync(mode, scenario)).Check(InvariantNames.Lifecycle).Violations, v => v.Rule == "dispose-threw");
    }

    [Theory]
    [InlineData((1 << 20) + 1000, false)]
    [InlineData(1 << 20, true)]
    public async Task A_writer_that_frames_each_mebibyte_slice_on_its_own_is_caught_only_past_one_mebibyte(int bodyLength, bool holds)
    {
        var broken = ZooWriters.FromName("Zoo:SlicedBodyReframe")!.Factory;
        var scenario = new Scenario(4096, ChannelLayout.OwnChannel, [[new PublishStep(bodyLength)]], FaultPlan.Empty);
        var shape = (await WriterLevelRunner.RunAsync(broken, scenario)).Check(InvariantNames.CommandShape);
        Assert.Equal(holds, shape.Holds);
        if (!holds) Assert.Contains(shape.Violations, v => v.Rule == "body-frame-not-full");
    }
}
