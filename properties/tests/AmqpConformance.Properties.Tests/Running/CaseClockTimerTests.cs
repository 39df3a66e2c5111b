using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>Timers on the case's clock fire when the harness moves the clock past them, so a writer's drain timeout on
/// a stalled output costs no real time; and they still fire by real time, as system timers do.</summary>
public sealed class CaseClockTimerTests
{
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(30); // bounds a test that fails; a passing one returns at once

    [Fact]
    public async Task A_timer_fires_when_the_clock_is_skipped_past_its_due_time_and_not_before()
    {
        var clock = new CaseClock();
        var fired = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var timer = clock.CreateTimer(
            _ => fired.TrySetResult(),
            null,
            TimeSpan.FromHours(1),
            Timeout.InfiniteTimeSpan
        );
        clock.Skip(TimeSpan.FromMinutes(59));
        Assert.False(fired.Task.IsCompleted);
        clock.Skip(TimeSpan.FromMinutes(1));
        await fired.Task.WaitAsync(Wait);
    }

    [Fact]
    public async Task Skipping_to_the_next_timer_moves_the_clock_to_the_earliest_due_time_within_the_limit()
    {
        var clock = new CaseClock();
        var early = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var late = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var a = clock.CreateTimer(
            _ => late.TrySetResult(),
            null,
            TimeSpan.FromHours(3),
            Timeout.InfiniteTimeSpan
        );
        using var b = clock.CreateTimer(
            _ => early.TrySetResult(),
            null,
            TimeSpan.FromHours(2),
            Timeout.InfiniteTimeSpan
        );

        Assert.False(clock.TrySkipToNextTimer(TimeSpan.FromHours(1)));
        Assert.Equal(TimeSpan.Zero, clock.Skipped);

        Assert.True(clock.TrySkipToNextTimer(TimeSpan.FromHours(4)));
        await early.Task.WaitAsync(Wait);
        Assert.InRange(clock.Skipped, TimeSpan.FromHours(2) - TimeSpan.FromSeconds(5), TimeSpan.FromHours(2));
        Assert.False(late.Task.IsCompleted);
    }

    [Fact]
    public async Task A_disposed_or_disarmed_timer_never_fires_and_a_periodic_one_rearms()
    {
        var clock = new CaseClock();
        int disposedFired = 0,
            disarmedFired = 0,
            periodicFired = 0;
        var twice = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var disposed = clock.CreateTimer(
            _ => Interlocked.Increment(ref disposedFired),
            null,
            TimeSpan.FromMinutes(1),
            Timeout.InfiniteTimeSpan
        );
        using var disarmed = clock.CreateTimer(
            _ => Interlocked.Increment(ref disarmedFired),
            null,
            TimeSpan.FromMinutes(1),
            Timeout.InfiniteTimeSpan
        );
        using var periodic = clock.CreateTimer(
            _ =>
            {
                if (Interlocked.Increment(ref periodicFired) == 2)
                    twice.TrySetResult();
            },
            null,
            TimeSpan.FromMinutes(1),
            TimeSpan.FromMinutes(1)
        );
        disposed.Dispose();
        Assert.True(disarmed.Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan));
        Assert.False(disposed.Change(TimeSpan.Zero, Timeout.InfiniteTimeSpan));

        clock.Skip(TimeSpan.FromMinutes(1));
        Assert.True(clock.TrySkipToNextTimer(TimeSpan.FromMinutes(2)));
        await twice.Task.WaitAsync(Wait);
        Assert.Equal(0, Volatile.Read(ref disposedFired));
        Assert.Equal(0, Volatile.Read(ref disarmedFired));
        Assert.False(clock.TrySkipToNextTimer(TimeSpan.Zero));
    }

    [Fact]
    public async Task A_timer_still_fires_by_real_time_when_nobody_skips()
    {
        var clock = new CaseClock();
        var fired = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var timer = clock.CreateTimer(
            _ => fired.TrySetResult(),
            null,
            TimeSpan.FromMilliseconds(1),
            Timeout.InfiniteTimeSpan
        );
        await fired.Task.WaitAsync(Wait);
        Assert.Equal(TimeSpan.Zero, clock.Skipped);
    }

    /// <summary>Two calls parked behind a stalled output, then disposal: the output stays stalled until disposal
    /// returns.</summary>
    private static Scenario StalledThroughDispose() =>
        new(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(100), new CallStep(100)],
                [new CallStep(100)],
            ],
            FaultPlan.Empty,
            Seed: 5
        )
        {
            Script = [ScriptAction.Hold, ScriptAction.Call(0), ScriptAction.Call(1), ScriptAction.Dispose],
            StallThroughDispose = true,
        };

    [Theory]
    [InlineData("Background")]
    [InlineData("Inline")]
    [InlineData("Coalescing")]
    public async Task A_reference_writer_stalled_through_disposal_gives_up_on_the_case_clock_and_holds_the_lifecycle(
        string mode
    )
    {
        // A drain timeout of ten minutes: waited in real time, the case would run into the test's timeout; skipped, it
        // costs nothing.
        var options = WriterRunOptions.Default with { StalledDrainTimeout = TimeSpan.FromMinutes(10) };
        var real = System.Diagnostics.Stopwatch.StartNew();
        var result = await WriterLevelRunner
            .RunAsync(WriterModes.FromName(mode)!, StalledThroughDispose(), options)
            .WaitAsync(TimeSpan.FromMinutes(2));
        real.Stop();
        // The case clock is real time plus what was skipped, so reaching the ten minutes within the run's real time
        // means the rest was skipped. (A fixed one-second allowance for the real part failed under stress-ng: settling
        // took longer than that.)
        Assert.True(
            result.Phases!.Skipped >= TimeSpan.FromMinutes(10) - real.Elapsed,
            $"skipped only {result.Phases.Skipped} in {real.Elapsed} of real time: the drain timeout was not moved past on the case clock"
        );
        Assert.NotNull(result.Evidence.Lifecycle!.DisposeReturnedAt);
        Assert.True(result.Check(InvariantNames.Lifecycle).Holds, result.Check(InvariantNames.Lifecycle).ToString());
        Assert.Contains("gave up", result.Evidence.Fault?.Description ?? "", StringComparison.Ordinal);
    }
}
