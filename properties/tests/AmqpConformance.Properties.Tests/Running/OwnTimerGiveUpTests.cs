using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.SelfTest.Zoo;
using AmqpConformance.SelfTest.Zoo.Correct;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>A writer that completes calls on accept and gives up on its own real-time timer may drop what it accepted
/// when the harness holds the output for longer than that timer: between a script's steps the output takes nothing for
/// as long as the harness takes to reach the next one, which on a loaded machine outlasted
/// <see cref="MonitorWaitThreadWriter"/>'s 1 s <c>Thread.Join</c> and got it blamed for lost publishes in CI.</summary>
[Collection(RunsAloneCollection.Name)]
public sealed class OwnTimerGiveUpTests
{
    /// <summary>Three publishes queue behind a held flush, disposal begins, and the output stays held for eight more
    /// steps before it is released: with each step settling for at least <see cref="Settle"/>, about 2.7 s, well past
    /// the writer's 1 s join. A last call comes after the release: the calls the writer dropped are not flushed before
    /// it, which is not a visibility lapse (disposal had returned; nothing may go out any more).</summary>
    private static Scenario HeldPastTheWritersJoin() =>
        new(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(300)],
                [new CallStep(200)],
                [new CallStep(100)],
                [new CallStep(50)],
            ],
            FaultPlan.Empty,
            Seed: 11
        )
        {
            Script =
            [
                ScriptAction.Hold,
                ScriptAction.Call(0),
                ScriptAction.Call(1),
                ScriptAction.Call(2),
                ScriptAction.Dispose,
                .. Enumerable.Repeat(ScriptAction.Hold, 8),
                ScriptAction.Release,
                ScriptAction.Call(3),
            ],
        };

    private static readonly WriterRunOptions Settle = new() { SettleFloor = TimeSpan.FromMilliseconds(300) };

    [Fact]
    public async Task A_writer_that_gives_up_on_its_own_timer_while_the_output_is_held_may_drop_what_it_accepted()
    {
        Assert.True(
            MonitorWaitThreadWriter.JoinWait < 8 * Settle.SettleFloor,
            "the hold must outlast the writer's own wait"
        );
        var factory = ZooWriters.FromName("Zoo:MonitorWaitThread")!.Factory;
        var result = await GaveUpWhileHeldAsync(factory);
        var life = result.Evidence.Lifecycle!;
        Assert.True(
            life.OutputHeldIntoDispose >= MonitorWaitThreadWriter.JoinWait,
            $"the output was held {life.OutputHeldIntoDispose} into disposal"
        );
        Assert.True(life.DisposeRealTime >= MonitorWaitThreadWriter.JoinWait, $"disposal took {life.DisposeRealTime}");
        Assert.False(
            life.OutputStalledThroughDispose,
            "the old excuse does not apply: the output was released at the end"
        );
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, v.ToString()));
        Assert.Empty(result.Evidence.VisibilityLapses);
    }

    [Fact]
    public async Task A_writer_that_gave_up_on_a_held_output_may_return_after_the_output_was_released()
    {
        // It gives up 300 ms into disposal, while the harness holds the output (about 2.7 s), lets the flush in flight
        // finish, which it does only when the harness releases the output, and returns then, dropping the rest. Judged
        // by whether the output was held when disposal returned, as once, it was blamed for lost publishes.
        var give = TimeSpan.FromMilliseconds(300);
        var factory = FrameWriterFactory.Create(
            "finish-frame-in-flight (300 ms)",
            c => new FinishFrameInFlightWriter(c, give, TimeSpan.FromSeconds(20)),
            WriterCompletion.OnAccept
        );
        var result = await GaveUpWhileHeldAsync(factory);
        var life = result.Evidence.Lifecycle!;
        Assert.True(
            life.OutputHeldIntoDispose >= give,
            $"the output was held {life.OutputHeldIntoDispose} into disposal"
        );
        Assert.True(
            life.OutputHeldIntoDispose < life.DisposeRealTime,
            $"disposal ({life.DisposeRealTime}) returned after the release ({life.OutputHeldIntoDispose} in)"
        );
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, v.ToString()));
    }

    /// <summary>Runs <see cref="HeldPastTheWritersJoin"/> until the writer gave up while the output was held and
    /// dropped what it had accepted, up to three times: its timer runs on the pool, and on a machine that keeps it off
    /// the CPU for the whole hold it gives up only after the release (and then drains everything), and the case shows
    /// nothing.</summary>
    private static async Task<RunResult> GaveUpWhileHeldAsync(FrameWriterFactory factory)
    {
        RunResult? result = null;
        for (int attempt = 0; attempt < 3 && (result is null || !DroppedWhatItAccepted(result)); attempt++)
            result = await WriterLevelRunner.RunAsync(factory, HeldPastTheWritersJoin(), Settle);
        Assert.True(
            DroppedWhatItAccepted(result!),
            "the writer gave up while the output was held in none of three cases"
        );
        return result!;
    }

    /// <summary>Whether, without the give-up excuse, the case shows calls completed on accept and dropped: the writer
    /// gave up while the output was held.</summary>
    private static bool DroppedWhatItAccepted(RunResult result)
    {
        var unexcused = result.Evidence with
        {
            Lifecycle = result.Evidence.Lifecycle! with
            {
                OutputHeldIntoDispose = null,
                LagDuringDispose = TimeSpan.Zero,
            },
        };
        return InvariantCheckers.Check(InvariantNames.Order, unexcused).Violations.Any(v => v.Rule == "lost-publish");
    }
}
