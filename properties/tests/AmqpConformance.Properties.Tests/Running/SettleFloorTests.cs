using System.Diagnostics;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary><see cref="WriterRunOptions.SettleFloor"/>: every settle of a scripted case lasts at least the floor, quiet
/// or not.</summary>
public sealed class SettleFloorTests
{
    private static Scenario FourSteps() =>
        new(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(100), new CallStep(100)],
            ],
            FaultPlan.Empty,
            Seed: 1
        )
        {
            Script = [ScriptAction.Hold, ScriptAction.Call(0), ScriptAction.Release, ScriptAction.Call(0)],
        };

    [Fact]
    public async Task A_scripted_case_takes_at_least_the_floor_for_each_step()
    {
        var floor = TimeSpan.FromMilliseconds(40);
        await WriterLevelRunner.RunAsync(WriterModes.Inline, FourSteps()); // warm: the first case in a process pays for the JIT
        var watch = Stopwatch.StartNew();
        var result = await WriterLevelRunner.RunAsync(
            WriterModes.Inline,
            FourSteps(),
            new WriterRunOptions { SettleFloor = floor }
        );
        watch.Stop();

        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, v.ToString()));
        // Each of the four steps settles at least once after it (calls settle twice); an idle Inline writer settles in
        // well under a millisecond without the floor.
        Assert.True(
            watch.Elapsed >= 4 * floor,
            $"the case took {watch.Elapsed.TotalMilliseconds:0} ms, less than 4 floors of {floor.TotalMilliseconds} ms"
        );
    }
}
