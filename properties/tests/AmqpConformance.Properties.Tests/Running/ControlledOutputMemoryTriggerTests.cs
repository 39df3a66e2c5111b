using System.Diagnostics;
using System.IO.Pipelines;
using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>The hook behind <c>cancel:writeN</c> (<see cref="ControlledOutput.FireOnMemoryRequest"/>): it fires at the
/// writer's n-th request for memory after it was armed, not before and not at a flush; on another thread, as a real
/// cancellation runs the writer's callbacks, and before the request returns; and a callback that waits for a lock the
/// writer holds while it asks for memory holds the request up only for <see cref="ControlledOutput.MemoryTriggerWait"/>,
/// not for ever.</summary>
public sealed class ControlledOutputMemoryTriggerTests
{
    private static ControlledOutput NewOutput() => UnstalledOutput.New();

    private static void Commit(PipeWriter output, int bytes) => UnstalledOutput.Commit(output, bytes);

    [Fact]
    public void Fires_at_the_nth_request_for_memory_after_it_was_armed_and_not_before()
    {
        var output = NewOutput();
        Commit(output, 10); // a request before arming does not count
        int fired = 0;
        output.FireOnMemoryRequest(() => Interlocked.Increment(ref fired), 2);
        output.GetMemory(10);
        output.Advance(10);
        Assert.Equal(0, Volatile.Read(ref fired));
        Commit(output, 10);
        Assert.Equal(1, Volatile.Read(ref fired));
        Commit(output, 10);
        Assert.Equal(1, Volatile.Read(ref fired)); // once
        Assert.Equal(4, output.MemoryRequests);
    }

    [Fact]
    public async Task Flushes_do_not_count_as_requests_for_memory_nor_requests_as_flushes()
    {
        var output = NewOutput();
        int atMemory = 0,
            atFlush = 0;
        output.FireOnMemoryRequest(() => Interlocked.Increment(ref atMemory), 1);
        output.FireOnFlush(() => Interlocked.Increment(ref atFlush), 2);
        await output.FlushAsync();
        Assert.Equal((0, 0), (Volatile.Read(ref atMemory), Volatile.Read(ref atFlush)));
        Commit(output, 1);
        await output.FlushAsync();
        Assert.Equal((1, 1), (Volatile.Read(ref atMemory), Volatile.Read(ref atFlush)));
    }

    [Fact]
    public void Fires_on_another_thread_before_the_request_returns()
    {
        var output = NewOutput();
        int firedOn = -1;
        output.FireOnMemoryRequest(() => Volatile.Write(ref firedOn, Environment.CurrentManagedThreadId), 1);
        Commit(output, 1);
        Assert.NotEqual(-1, Volatile.Read(ref firedOn));
        Assert.NotEqual(Environment.CurrentManagedThreadId, Volatile.Read(ref firedOn));
    }

    [Fact]
    public void A_disarmed_trigger_does_not_fire()
    {
        var output = NewOutput();
        int fired = 0;
        Action fire = () => Interlocked.Increment(ref fired);
        output.FireOnMemoryRequest(fire, 1);
        output.Disarm(fire);
        Commit(output, 1);
        Assert.Equal(0, Volatile.Read(ref fired));
    }

    [Fact]
    public void A_callback_that_needs_the_writers_lock_holds_the_request_up_only_for_the_bound()
    {
        var output = NewOutput();
        using var writerLock = new SemaphoreSlim(1, 1);
        using var callbackDone = new ManualResetEventSlim();
        output.FireOnMemoryRequest(
            () =>
            {
                writerLock.Wait(); // a correct writer's callback taking the lock its loop holds while it writes
                writerLock.Release();
                callbackDone.Set();
            },
            1
        );
        writerLock.Wait();
        var requested = Stopwatch.StartNew();
        Commit(output, 1); // on a thread of its own the callback would deadlock the writer here
        requested.Stop();
        Assert.False(callbackDone.IsSet, "the callback cannot have the lock yet");
        Assert.True(requested.Elapsed >= ControlledOutput.MemoryTriggerWait * 0.8, requested.Elapsed.ToString());
        writerLock.Release();
        Assert.True(callbackDone.Wait(TimeSpan.FromSeconds(10)), "the callback completes once the writer goes on");
    }
}
