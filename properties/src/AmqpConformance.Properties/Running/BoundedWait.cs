namespace AmqpConformance.Properties.Running;

/// <summary>Waits for a task with a time bound, releasing the bound's timer as soon as the task completes. The pattern
/// it replaces, <c>Task.WhenAny(task, Task.Delay(bound))</c>, leaves the delay's timer armed for its whole length after
/// the task completed: with a 5 s bound per call, a run of a few hundred cases a second kept tens of thousands of
/// timers alive.</summary>
internal static class BoundedWait
{
    /// <summary>Waits until <paramref name="task"/> completes or <paramref name="bound"/> passes (a negative bound
    /// counts as zero; <see cref="Timeout.InfiniteTimeSpan"/> waits for ever) and returns whether it completed. Never
    /// throws for the task's own failure or cancellation: the caller inspects the task.</summary>
    public static async Task<bool> CompletesWithinAsync(Task task, TimeSpan bound)
    {
        ArgumentNullException.ThrowIfNull(task);
        if (task.IsCompleted)
            return true;
        if (bound != Timeout.InfiniteTimeSpan && bound < TimeSpan.Zero)
            bound = TimeSpan.Zero;
        await task.WaitAsync(bound).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        return task.IsCompleted;
    }

    /// <summary>Waits until <paramref name="task"/> completes or <paramref name="bound"/> of time in which the process
    /// could run has passed, and returns whether it completed: when the bound runs out, the wait goes on for as long as
    /// <paramref name="lag"/> (by default <see cref="SchedulingLag.Process"/>) says the process was kept from running
    /// meanwhile (up to <see cref="RunnableStopwatch.MostCredited"/> in all), after letting the meter see the time up
    /// to now. On an idle machine it waits the bound, as <see cref="CompletesWithinAsync"/> does; on a loaded one, a
    /// writer whose threads were off the CPU is given the time it lost, and a writer that never completes the task is
    /// still caught.</summary>
    public static async Task<bool> CompletesWithinRunnableAsync(Task task, TimeSpan bound, ISchedulingLag? lag = null)
    {
        ArgumentNullException.ThrowIfNull(task);
        lag ??= SchedulingLag.Process;
        var runnable = RunnableStopwatch.StartNew(lag);
        var wait = bound;
        while (true)
        {
            if (await CompletesWithinAsync(task, wait).ConfigureAwait(false))
                return true;
            // The meter's tick may not have run since the process came back: let it look before reading the lag.
            await lag.NextTickAsync()
                .WaitAsync(TimeSpan.FromSeconds(1))
                .ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
            if (task.IsCompleted)
                return true;
            wait = runnable.TakeOwed();
            if (wait <= TimeSpan.Zero)
                return false;
        }
    }
}
