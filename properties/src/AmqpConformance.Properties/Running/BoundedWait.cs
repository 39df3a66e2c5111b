namespace AmqpConformance.Properties.Running;

/// <summary>Waits for a task with a time bound, releasing the bound's timer as soon as the task completes. The pattern it
/// replaces, <c>Task.WhenAny(task, Task.Delay(bound))</c>, leaves the delay's timer armed for its whole length after the task
/// completed: with a 5 s bound per call, a run of a few hundred cases a second kept tens of thousands of timers alive.</summary>
internal static class BoundedWait
{
    /// <summary>Waits until <paramref name="task"/> completes or <paramref name="bound"/> passes (a negative bound counts as zero;
    /// <see cref="Timeout.InfiniteTimeSpan"/> waits for ever) and returns whether it completed. Never throws for the task's own
    /// failure or cancellation: the caller inspects the task.</summary>
    public static async Task<bool> CompletesWithinAsync(Task task, TimeSpan bound)
    {
        ArgumentNullException.ThrowIfNull(task);
        if (task.IsCompleted) return true;
        if (bound != Timeout.InfiniteTimeSpan && bound < TimeSpan.Zero) bound = TimeSpan.Zero;
        await task.WaitAsync(bound).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        return task.IsCompleted;
    }
}
