using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>The connections of one case meet at each step, and one that left or never came holds no one up for
/// long.</summary>
public sealed class ConnectionLockstepTests
{
    [Fact]
    public async Task A_step_ends_when_every_running_connection_has_arrived()
    {
        var lockstep = new ConnectionLockstep(3);
        var first = lockstep.ArriveAsync();
        var second = lockstep.ArriveAsync();
        Assert.False(first.IsCompleted);
        Assert.False(second.IsCompleted);

        var third = lockstep.ArriveAsync();

        Assert.True(third.IsCompleted, "the last to arrive goes on at once");
        await Task.WhenAll(first, second).WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal(1, lockstep.StepsMet);
        Assert.False(lockstep.ArriveAsync().IsCompleted, "the next step waits again");
    }

    [Fact]
    public async Task A_connection_that_leaves_lets_the_others_go_on_and_is_not_waited_for_again()
    {
        var lockstep = new ConnectionLockstep(2);
        var waiting = lockstep.ArriveAsync();
        Assert.False(waiting.IsCompleted);

        lockstep.Leave();

        await waiting.WaitAsync(TimeSpan.FromSeconds(30));
        Assert.True(lockstep.ArriveAsync().IsCompleted, "alone now: no step waits");
        Assert.Equal(1, lockstep.StepsMet);
    }

    [Fact]
    public void A_lockstep_of_one_never_waits()
    {
        var lockstep = new ConnectionLockstep(1);
        Assert.True(lockstep.ArriveAsync().IsCompleted);
        Assert.True(lockstep.ArriveAsync().IsCompleted);
        Assert.Throws<ArgumentOutOfRangeException>(() => new ConnectionLockstep(0));
    }

    [Fact]
    public async Task A_connection_that_never_arrives_holds_the_others_no_longer_than_the_most_wait()
    {
        var lockstep = new ConnectionLockstep(2);
        var started = System.Diagnostics.Stopwatch.StartNew();

        await lockstep.ArriveAsync().WaitAsync(TimeSpan.FromSeconds(60));

        Assert.True(
            started.Elapsed >= ConnectionLockstep.MostWait - TimeSpan.FromMilliseconds(50),
            $"{started.Elapsed}"
        );
        Assert.Equal(0, lockstep.StepsMet);
    }
}
