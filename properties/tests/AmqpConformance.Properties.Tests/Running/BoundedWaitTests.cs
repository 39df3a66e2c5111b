using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary><see cref="BoundedWait"/>: whether a task completed within its bound, never its failure, and no timer left
/// armed.</summary>
[Collection(RunsAloneCollection.Name)]
public sealed class BoundedWaitTests
{
    [Fact]
    public async Task A_task_that_completes_in_time_counts_as_completed_and_its_failure_is_not_thrown()
    {
        var failing = new TaskCompletionSource();
        var wait = BoundedWait.CompletesWithinAsync(failing.Task, TimeSpan.FromHours(1));
        failing.SetException(new InvalidOperationException("the call failed"));
        Assert.True(await wait);
        Assert.True(
            await BoundedWait.CompletesWithinAsync(Task.FromCanceled(new CancellationToken(true)), TimeSpan.Zero)
        );
    }

    [Fact]
    public async Task A_task_that_never_completes_is_given_up_on_after_the_bound_and_a_negative_bound_counts_as_zero()
    {
        var never = new TaskCompletionSource().Task;
        Assert.False(await BoundedWait.CompletesWithinAsync(never, TimeSpan.FromMilliseconds(20)));
        Assert.False(await BoundedWait.CompletesWithinAsync(never, TimeSpan.FromMilliseconds(-5)));
    }

    [Fact]
    public async Task The_bounds_timer_goes_as_soon_as_the_task_completes()
    {
        // Task.WhenAny(task, Task.Delay(1 h)) would leave all of these timers armed for an hour.
        const int waits = 2000;
        long before = Timer.ActiveCount;
        var sources = Enumerable.Range(0, waits).Select(_ => new TaskCompletionSource()).ToList();
        var all = sources.Select(s => BoundedWait.CompletesWithinAsync(s.Task, TimeSpan.FromHours(1))).ToList();
        Assert.True(
            Timer.ActiveCount - before >= waits / 2,
            $"{Timer.ActiveCount - before} timers while waiting: the bound is not timed"
        );
        foreach (var s in sources)
            s.SetResult();
        Assert.All(await Task.WhenAll(all), Assert.True);
        Assert.True(
            Timer.ActiveCount - before < waits / 2,
            $"{Timer.ActiveCount - before} of {waits} timers still armed after their tasks completed"
        );
    }
}
