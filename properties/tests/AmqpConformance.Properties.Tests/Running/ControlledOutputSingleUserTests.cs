using System.IO.Pipelines;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>The output is a PipeWriter, not thread-safe: a writer that starts a flush while an earlier one of its own
/// is pending, or is inside it on two threads at once, is noted and judged (no-interleaving/concurrent-output-use), and
/// one that flushes outside its lock gets that verdict instead of breaking the harness's transport.</summary>
[Collection(RunsAloneCollection.Name)]
public sealed class ControlledOutputSingleUserTests
{
    private static ControlledOutput NewOutput() => UnstalledOutput.New();

    private static void Commit(PipeWriter output, int bytes) => UnstalledOutput.Commit(output, bytes);

    [Fact]
    public async Task Writes_and_flushes_one_after_another_are_not_noted_even_while_flushes_are_held()
    {
        var output = NewOutput();
        output.Hold();
        Commit(output, 10);
        var held = output.FlushAsync();
        Commit(output, 10); // writing while a flush is pending is a pipe's normal use
        output.Release();
        await held;
        Commit(output, 10);
        await output.FlushAsync();
        Assert.Null(output.ConcurrentUse);
    }

    [Fact]
    public async Task A_flush_started_while_an_earlier_one_is_pending_is_noted()
    {
        var output = NewOutput();
        output.Hold();
        Commit(output, 10);
        var first = output.FlushAsync();
        Commit(output, 10);
        var second = output.FlushAsync();
        Assert.Contains("earlier flush", output.ConcurrentUse, StringComparison.Ordinal);
        output.Release();
        await first;
        await second;
    }

    [Fact]
    public async Task A_writer_that_flushes_outside_its_lock_is_judged_and_the_run_ends_normally()
    {
        var broken = ZooWriters.FromName("Zoo:FlushOutsideLock")!.Factory;
        // Call 0's flush is held after the writer let go of its lock; call 1 writes and flushes while it is pending.
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10)],
                [new CallStep(20)],
            ],
            FaultPlan.Empty
        )
        {
            Script = [ScriptAction.Hold, ScriptAction.Call(0), ScriptAction.Call(1), ScriptAction.Release],
        };
        var result = await WriterLevelRunner.RunAsync(broken, scenario);
        Assert.Contains(result.Check(InvariantNames.NoInterleaving).Violations, v => v.Rule == "concurrent-output-use");
        var inline = await WriterLevelRunner.RunAsync(WriterModes.Inline, scenario);
        Assert.Null(inline.Evidence.ConcurrentOutputUse);
        Assert.All(inline.CheckAll(), v => Assert.True(v.Holds, v.ToString()));
    }
}
