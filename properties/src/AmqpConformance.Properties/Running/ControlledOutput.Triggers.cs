namespace AmqpConformance.Properties.Running;

/// <content>Cancellations armed for a point inside the writer: its n-th flush (<see cref="FireOnFlush"/>, fired on the
/// flushing thread before the flush starts) or its n-th request for memory (<see cref="FireOnMemoryRequest"/>, fired
/// from another thread while the request waits a little: the moment after a loop took a call and checked its token,
/// before it wrote the call's bytes).</content>
internal sealed partial class ControlledOutput
{
    /// <summary>How long a request for memory waits for the cancellation it fired (<see cref="FireOnMemoryRequest"/>)
    /// to return once it has started. A real cancellation runs the writer's callbacks on the cancelling thread, never on
    /// the writer's; one that needs a lock the writer holds while it asks for memory cannot return until the writer goes
    /// on, so the wait gives up after this and the writer goes on with the callback still running, as it would
    /// have.</summary>
    public static readonly TimeSpan MemoryTriggerWait = TimeSpan.FromMilliseconds(50);

    /// <summary>How long a request for memory waits for the cancelling thread to start: a loaded machine may keep it
    /// off the CPU for a while, and the writer must not go on before the cancellation has begun.</summary>
    private static readonly TimeSpan MemoryTriggerStartWait = TimeSpan.FromSeconds(1);

    private readonly List<(bool AtMemory, long At, Action Fire)> _triggers = [];

    /// <summary>Requests for memory (GetMemory, GetSpan) the writer made so far.</summary>
    public long MemoryRequests => Interlocked.Read(ref _memoryRequests);

    /// <summary>Runs <paramref name="fire"/> when the writer starts its <paramref name="flushesFromNow"/>-th flush from
    /// now.</summary>
    public void FireOnFlush(Action fire, int flushesFromNow) => Arm(atMemory: false, Flushes + flushesFromNow, fire);

    /// <summary>Runs <paramref name="fire"/> on another thread when the writer makes its
    /// <paramref name="requestsFromNow"/>-th request for memory from now, and holds that request until it returned, for
    /// at most <see cref="MemoryTriggerWait"/>.</summary>
    public void FireOnMemoryRequest(Action fire, int requestsFromNow) =>
        Arm(atMemory: true, MemoryRequests + requestsFromNow, fire);

    /// <summary>Disarms <paramref name="fire"/> (its call has completed).</summary>
    public void Disarm(Action fire)
    {
        lock (_gate)
            _triggers.RemoveAll(t => t.Fire == fire);
    }

    private void Arm(bool atMemory, long at, Action fire)
    {
        lock (_gate)
            _triggers.Add((atMemory, at, fire));
    }

    private void FireFlushTriggers(long flush)
    {
        if (Due(atMemory: false, flush) is { } fire)
            foreach (var f in fire)
                f();
    }

    private void FireMemoryTriggers(long request)
    {
        if (Due(atMemory: true, request) is not { } fire)
            return;
        foreach (var f in fire)
            FireFromAnotherThread(f);
    }

    /// <summary>Takes off the list the triggers of that kind that are due at <paramref name="count"/>.</summary>
    private List<Action>? Due(bool atMemory, long count)
    {
        List<Action>? fire = null;
        lock (_gate)
        {
            for (int i = _triggers.Count - 1; i >= 0; i--)
            {
                if (_triggers[i].AtMemory != atMemory || _triggers[i].At > count)
                    continue;
                (fire ??= []).Add(_triggers[i].Fire);
                _triggers.RemoveAt(i);
            }
        }
        return fire;
    }

    /// <summary>Runs <paramref name="fire"/> on a thread of the harness's own (<see cref="SpareThreads"/>: not the
    /// pool's, which a busy writer may hold until the moment has passed) and waits for it to start (within
    /// <see cref="MemoryTriggerStartWait"/>), then to return (within <see cref="MemoryTriggerWait"/>). The waits are
    /// on tasks nobody can run inline, so the callbacks never run on this thread.</summary>
    private static void FireFromAnotherThread(Action fire)
    {
        var started = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var returned = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        SpareThreads.Run(() =>
        {
            started.TrySetResult();
            try
            {
                fire();
            }
            catch (Exception)
            {
                // A callback of the writer's that threw: a real cancellation throws it to the cancelling thread, not to
                // the writer; the judges see what the writer did about its call.
            }
            finally
            {
                returned.TrySetResult();
            }
        });
        if (started.Task.Wait(MemoryTriggerStartWait))
            returned.Task.Wait(MemoryTriggerWait);
    }
}
