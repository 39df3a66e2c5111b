using AmqpConformance.Properties.Running;
using Microsoft.Extensions.Time.Testing;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary><see cref="SchedulingLag"/> counts the time a tick came late, and
/// <see cref="BoundedWait.CompletesWithinRunnableAsync"/> gives a task that time back before calling it hung.</summary>
public sealed class SchedulingLagTests
{
    private static readonly TimeSpan Period = TimeSpan.FromMilliseconds(10);
    private static readonly TimeSpan Tolerance = TimeSpan.FromMilliseconds(5);

    [Fact]
    public void A_tick_late_by_more_than_the_tolerance_adds_its_lateness_and_a_punctual_one_adds_nothing()
    {
        var time = new FakeTimeProvider();
        using var lag = new SchedulingLag(time, Period, Tolerance);
        long start = time.GetTimestamp();
        long Ticks(TimeSpan t) => start + (long)(t.TotalSeconds * time.TimestampFrequency);

        lag.Observe(Ticks(TimeSpan.FromMilliseconds(10))); // on time
        lag.Observe(Ticks(TimeSpan.FromMilliseconds(24))); // 4 ms late: within the tolerance
        Assert.Equal(TimeSpan.Zero, lag.Total);
        lag.Observe(Ticks(TimeSpan.FromMilliseconds(6034))); // the process was stopped for six seconds
        Assert.Equal(TimeSpan.FromMilliseconds(6000), lag.Total);
    }

    [Fact]
    public void Lag_within_an_interval_counts_the_late_ticks_whose_stall_touches_it_and_no_others()
    {
        var time = new FakeTimeProvider();
        using var lag = new SchedulingLag(time, Period, Tolerance);
        long start = time.GetTimestamp();
        long At(double ms) => start + (long)(ms / 1000 * time.TimestampFrequency);

        lag.Observe(At(10));
        lag.Observe(At(520)); // stopped for 500 ms somewhere between 10 and 520 ms
        lag.Observe(At(530));
        lag.Observe(At(1_040)); // and for 500 ms more between 530 and 1,040 ms

        Assert.Equal(TimeSpan.FromMilliseconds(1_000), lag.LagWithin(At(0), At(2_000)));
        Assert.Equal(TimeSpan.FromMilliseconds(500), lag.LagWithin(At(0), At(100))); // the first stall may have been here
        Assert.Equal(TimeSpan.FromMilliseconds(500), lag.LagWithin(At(600), At(700))); // the second one
        Assert.Equal(TimeSpan.Zero, lag.LagWithin(At(1_100), At(1_500))); // after both
        // From 0 to 2 s the process could run for 1 s; over the first 100 ms nothing is left to the writer for certain.
        Assert.Equal(TimeSpan.FromMilliseconds(1_000), lag.RunnableBetween(At(0), At(2_000)));
        Assert.Equal(TimeSpan.Zero, lag.RunnableBetween(At(0), At(100)));
    }

    [Fact]
    public void An_interval_older_than_the_meter_remembers_counts_as_all_lag()
    {
        var time = new FakeTimeProvider();
        using var lag = new SchedulingLag(time, Period, Tolerance);
        long start = time.GetTimestamp();
        long At(double ms) => start + (long)(ms / 1000 * time.TimestampFrequency);
        for (int i = 1; i <= SchedulingLag.LogCapacity + 10; i++)
            lag.Observe(At(i * 20.0)); // every tick 10 ms late

        Assert.Equal(TimeSpan.Zero, lag.RunnableBetween(At(0), At(1_000)));
        Assert.Equal(
            TimeSpan.FromMilliseconds(100),
            lag.LagWithin(At((SchedulingLag.LogCapacity - 10) * 20.0), At((SchedulingLag.LogCapacity - 1) * 20.0 - 15))
        );
    }

    [Fact]
    public async Task The_next_tick_completes_when_the_meter_looks_at_the_time()
    {
        var time = new FakeTimeProvider();
        using var lag = new SchedulingLag(time, Period, Tolerance);
        var next = lag.NextTickAsync();
        Assert.False(next.IsCompleted);
        time.Advance(Period);
        await next.WaitAsync(TimeSpan.FromSeconds(30));
    }

    [Fact]
    public async Task A_wait_whose_bound_ran_out_while_the_process_could_not_run_waits_that_long_again()
    {
        var call = new TaskCompletionSource();
        // At the bound, the meter reports 200 ms during which nothing ran, and the writer finishes in the time given
        // back.
        var lag = new FakeLag(onTick: fake =>
        {
            if (fake.Ticks == 1)
                fake.Total += TimeSpan.FromMilliseconds(200);
            else
                call.TrySetResult();
        });
        Assert.True(await BoundedWait.CompletesWithinRunnableAsync(call.Task, TimeSpan.FromMilliseconds(20), lag));
        Assert.True(lag.Ticks >= 1);
    }

    [Fact]
    public async Task A_task_that_never_completes_on_a_machine_that_ran_promptly_is_given_up_on_at_the_bound()
    {
        var lag = new FakeLag(onTick: _ => { });
        Assert.False(
            await BoundedWait.CompletesWithinRunnableAsync(
                new TaskCompletionSource().Task,
                TimeSpan.FromMilliseconds(20),
                lag
            )
        );
        Assert.Equal(1, lag.Ticks);
    }

    [Fact]
    public void A_runnable_stopwatch_gives_back_each_lag_once_and_no_more_than_its_cap_in_all()
    {
        var lag = new FakeLag(onTick: _ => { });
        var runnable = RunnableStopwatch.StartNew(lag);
        Assert.Equal(TimeSpan.Zero, runnable.TakeOwed());
        lag.Total += TimeSpan.FromSeconds(2);
        Assert.Equal(TimeSpan.FromSeconds(2), runnable.TakeOwed());
        Assert.Equal(TimeSpan.Zero, runnable.TakeOwed()); // already given
        lag.Total += TimeSpan.FromSeconds(70);
        Assert.Equal(TimeSpan.FromSeconds(70), runnable.TakeOwed()); // the last that fits under the cap is given whole
        lag.Total += TimeSpan.FromSeconds(1);
        Assert.Equal(TimeSpan.Zero, runnable.TakeOwed());
        // Elapsed is wall time less the lag: here the lag exceeds the wall time, and nothing is left.
        Assert.Equal(TimeSpan.Zero, runnable.Elapsed);
        runnable.Restart();
        Assert.Equal(TimeSpan.Zero, runnable.TakeOwed());
    }

    /// <summary>A meter whose lag the test sets at each look.</summary>
    private sealed class FakeLag(Action<FakeLag> onTick) : ISchedulingLag
    {
        public int Ticks { get; private set; }

        public TimeSpan Total { get; set; }

        public Task NextTickAsync()
        {
            Ticks++;
            onTick(this);
            return Task.CompletedTask;
        }

        public long Now => 0;

        public TimeSpan LagWithin(long from, long to) => Total;

        public TimeSpan RunnableBetween(long from, long to) => TimeSpan.Zero;
    }
}
