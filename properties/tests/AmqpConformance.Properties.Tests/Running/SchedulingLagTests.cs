using AmqpConformance.Properties.Running;
using Microsoft.Extensions.Time.Testing;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary><see cref="SchedulingLag"/> counts the time a tick came late, and <see cref="BoundedWait.CompletesWithinRunnableAsync"/>
/// gives a task that time back before calling it hung.</summary>
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

        lag.Observe(Ticks(TimeSpan.FromMilliseconds(10)));  // on time
        lag.Observe(Ticks(TimeSpan.FromMilliseconds(24)));  // 4 ms late: within the tolerance
        Assert.Equal(TimeSpan.Zero, lag.Total);
        lag.Observe(Ticks(TimeSpan.FromMilliseconds(6034))); // the process was stopped for six seconds
        Assert.Equal(TimeSpan.FromMilliseconds(6000), lag.Total);
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
        // At the bound, the meter reports 200 ms during which nothing ran, and the writer finishes in the time given back.
        var lag = new FakeLag(onTick: fake =>
        {
            if (fake.Ticks == 1) fake.Total += TimeSpan.FromMilliseconds(200);
            else call.TrySetResult();
        });
        Assert.True(await BoundedWait.CompletesWithinRunnableAsync(call.Task, TimeSpan.FromMilliseconds(20), lag));
        Assert.True(lag.Ticks >= 1);
    }

    [Fact]
    public async Task A_task_that_never_completes_on_a_machine_that_ran_promptly_is_given_up_on_at_the_bound()
    {
        var lag = new FakeLag(onTick: _ => { });
        Assert.False(await BoundedWait.CompletesWithinRunnableAsync(new TaskCompletionSource().Task, TimeSpan.FromMilliseconds(20), lag));
        Assert.Equal(1, lag.Ticks);
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
    }
}
