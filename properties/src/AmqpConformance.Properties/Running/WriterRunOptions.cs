namespace AmqpConformance.Properties.Running;

/// <summary>Limits of one writer-level run.</summary>
public sealed record WriterRunOptions
{
    /// <summary>How long one publish call may take before it counts as hung (default 5 s: generous, so a loaded CI machine
    /// is never mistaken for a hang; shrinking a real hang is bounded by <see cref="PropertyRunOptions.ShrinkBudget"/>).</summary>
    public TimeSpan CallTimeout { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>How long the writer's DisposeAsync may take, draining included (default 10 s, longer than the reference
    /// background writer's own 5-second drain limit).</summary>
    public TimeSpan DisposeTimeout { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>The writer's queue capacity in backpressure (stalled) runs, kept small so unbounded buffering shows (default 4).</summary>
    public int StalledQueueCapacity { get; init; } = 4;

    /// <summary>How long without progress counts as "the writer is blocked" in a stalled run (default 20 ms).</summary>
    public TimeSpan QuietPeriod { get; init; } = TimeSpan.FromMilliseconds(20);

    /// <summary>Defaults.</summary>
    public static WriterRunOptions Default { get; } = new();
}
