using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>The window that ends a fault grace's real-time wait early is reached only by prompt trips on end, from
/// given times (no clock read).</summary>
public sealed class PromptSchedulingWindowTests
{
    private static TimeSpan Ms(double ms) => TimeSpan.FromMilliseconds(ms);

    [Fact]
    public void Prompt_trips_reach_the_window_once_they_span_it()
    {
        var window = new PromptSchedulingWindow(Ms(20));
        double at = 0;
        while (at < 19.9)
        {
            Assert.True(window.Trip(Ms(at), Ms(at + 0.05)));
            at += 0.05;
            Assert.False(window.Reached, $"reached at {at} ms of a 20 ms window");
        }
        window.Trip(Ms(at), Ms(at + 0.2));
        Assert.True(window.Reached);
    }

    [Fact]
    public void A_slow_trip_restarts_the_window_from_when_it_came_back()
    {
        var window = new PromptSchedulingWindow(Ms(20));
        Assert.True(window.Trip(Ms(0), Ms(0.1)));
        Assert.False(window.Trip(Ms(0.1), Ms(15)), "a 14.9 ms trip counted as prompt");
        window.Trip(Ms(15), Ms(25));
        Assert.False(window.Reached, "the window counted time before the slow trip");
        Assert.False(window.Trip(Ms(25), Ms(34.5)), "a 9.5 ms trip counted as prompt");
        Assert.True(window.Trip(Ms(34.5), Ms(35)));
        Assert.False(window.Reached);
        Assert.True(window.Trip(Ms(54), Ms(54.5)));
        Assert.True(window.Reached, "20 ms of prompt trips after the slow one did not reach the window");
    }

    [Fact]
    public void A_trip_of_exactly_the_prompt_bound_is_prompt_and_one_tick_more_is_not()
    {
        var window = new PromptSchedulingWindow(Ms(20));
        Assert.True(window.Trip(TimeSpan.Zero, PromptSchedulingWindow.PromptTrip));
        Assert.False(window.Trip(Ms(1), Ms(1) + PromptSchedulingWindow.PromptTrip + TimeSpan.FromTicks(1)));
    }

    [Fact]
    public void A_restart_moves_the_window_start()
    {
        var window = new PromptSchedulingWindow(Ms(20));
        window.Restart(Ms(10));
        window.Trip(Ms(29), Ms(29.5));
        Assert.False(window.Reached);
        window.Trip(Ms(29.5), Ms(30));
        Assert.True(window.Reached);
    }

    [Fact]
    public void A_zero_window_is_never_reached()
    {
        var window = new PromptSchedulingWindow(TimeSpan.Zero);
        for (int i = 0; i < 1000; i++)
            window.Trip(Ms(i), Ms(i + 0.01));
        Assert.False(window.Reached);
    }

    /// <summary>A clock that moves by <paramref name="step"/> each time it is read: every trip through the pool looks
    /// that long.</summary>
    private sealed class SteppingClock(TimeSpan step) : TimeProvider
    {
        private long _ticks;

        public override long TimestampFrequency => TimeSpan.TicksPerSecond;

        public override long GetTimestamp() => Interlocked.Add(ref _ticks, step.Ticks);
    }

    [Fact]
    public async Task The_wait_ends_once_trips_have_been_prompt_for_the_window()
    {
        var waited = await PromptSchedulingWindow.WaitAsync(Ms(50), Ms(200), new SteppingClock(Ms(0.01)));
        Assert.InRange(waited, Ms(50), Ms(51));
    }

    [Fact]
    public async Task Slow_trips_get_the_whole_limit()
    {
        var waited = await PromptSchedulingWindow.WaitAsync(Ms(50), Ms(200), new SteppingClock(Ms(2)));
        Assert.True(waited >= Ms(200), $"the wait ended after {waited.TotalMilliseconds} ms of slow trips");
    }

    [Fact]
    public async Task Without_a_window_the_whole_limit_is_waited()
    {
        var clock = new CaseClock();
        var limit = TimeSpan.FromMinutes(10);
        var wait = PromptSchedulingWindow.WaitAsync(TimeSpan.Zero, limit, clock);
        Assert.False(wait.IsCompleted, "the wait ended before its limit");
        clock.Skip(limit);
        var waited = await wait.WaitAsync(TimeSpan.FromMinutes(1));
        Assert.True(waited >= limit, $"waited {waited} of {limit}");
    }
}
