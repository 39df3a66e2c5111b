namespace AmqpConformance.Properties.Running;

/// <summary>
/// Keeps the connections of one case (<see cref="Scenarios.Scenario.Connections"/>) in step: each connection's driver
/// arrives before its publishers are let go and before each script step, and goes on once every connection still
/// running has arrived, so the writers' calls, holds, releases and disposals happen at the same moments. A connection
/// whose run ended (or failed to open) leaves, and no one waits for it. Pacing only, never a verdict: a connection
/// waits at most <see cref="MostWait"/> of real time for the others (one may be waiting out a writer's timer or be
/// stuck inside it, which its own case bound reports), then goes on alone for that step.
/// </summary>
internal sealed class ConnectionLockstep
{
    private readonly object _gate = new();
    private int _running;
    private int _arrived;
    private TaskCompletionSource _step = NewStep();

    /// <summary>A lockstep for <paramref name="connections"/> connections.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="connections"/> is below 1.</exception>
    public ConnectionLockstep(int connections)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(connections, 1);
        _running = connections;
    }

    /// <summary>How long a connection waits for the others at one step: 2 s of real time, far longer than a step
    /// takes unless a writer's own timer or a stuck writer holds its connection.</summary>
    public static TimeSpan MostWait { get; } = TimeSpan.FromSeconds(2);

    /// <summary>How many steps ended because every running connection had arrived (the others ended by
    /// <see cref="MostWait"/> or by a connection leaving).</summary>
    public int StepsMet { get; private set; }

    /// <summary>Arrives at the next step; completes when every running connection has arrived, or after
    /// <see cref="MostWait"/>.</summary>
    public async Task ArriveAsync()
    {
        Task step;
        lock (_gate)
        {
            step = _step.Task;
            _arrived++;
            if (_arrived >= _running)
            {
                StepsMet++;
                NextStep();
            }
        }
        if (step.IsCompleted)
            return;
        using var stopWaiting = new CancellationTokenSource();
        await Task.WhenAny(step, Task.Delay(MostWait, stopWaiting.Token)).ConfigureAwait(false);
        await stopWaiting.CancelAsync().ConfigureAwait(false);
    }

    /// <summary>Leaves for good: the connection's run has ended. Those waiting at a step for it alone go on.</summary>
    public void Leave()
    {
        lock (_gate)
        {
            _running--;
            if (_arrived > 0 && _arrived >= _running)
                NextStep();
        }
    }

    private void NextStep()
    {
        var done = _step;
        _arrived = 0;
        _step = NewStep();
        done.SetResult();
    }

    private static TaskCompletionSource NewStep() => new(TaskCreationOptions.RunContinuationsAsynchronously);
}
