using System.Diagnostics;

namespace AmqpConformance.Properties.Running;

/// <summary>Measures real time in which the process could run: wall time less the lag a <see cref="ISchedulingLag"/>
/// saw since the stopwatch started (time off the CPU, a stopped process). Every real-time bound the harness judges a
/// writer on counts time so: a writer cannot run while the machine keeps the process from running. Two ways to use it:
/// read <see cref="Elapsed"/> (an idleness), or wait a bound in wall time and then take the lag seen meanwhile as more
/// time to wait (<see cref="TakeOwed"/>), up to <see cref="MostCredited"/> in all.</summary>
/// <remarks>The meter sees a stall only at its next tick: before a verdict, await
/// <see cref="ISchedulingLag.NextTickAsync"/> so the time up to now has been looked at. Not thread-safe; one owner at a
/// time.</remarks>
internal sealed class RunnableStopwatch
{
    private readonly ISchedulingLag _lag;
    private long _started;
    private TimeSpan _lagAtStart;
    private TimeSpan _credited;

    private RunnableStopwatch(ISchedulingLag lag)
    {
        _lag = lag;
        Restart();
    }

    /// <summary>The most lag <see cref="TakeOwed"/> gives back in all: a process kept from running longer than this is
    /// not waited for.</summary>
    public static readonly TimeSpan MostCredited = TimeSpan.FromSeconds(60);

    /// <summary>Starts a stopwatch on <paramref name="lag"/> (by default
    /// <see cref="SchedulingLag.Process"/>).</summary>
    public static RunnableStopwatch StartNew(ISchedulingLag? lag = null) => new(lag ?? SchedulingLag.Process);

    /// <summary>The wall time since the start, less the lag seen meanwhile; never negative.</summary>
    public TimeSpan Elapsed
    {
        get
        {
            var runnable = Stopwatch.GetElapsedTime(_started) - (_lag.Total - _lagAtStart);
            return runnable > TimeSpan.Zero ? runnable : TimeSpan.Zero;
        }
    }

    /// <summary>Starts again from now, with nothing credited.</summary>
    public void Restart()
    {
        _started = Stopwatch.GetTimestamp();
        _lagAtStart = _lag.Total;
        _credited = TimeSpan.Zero;
    }

    /// <summary>The lag seen since the start that no earlier call took, as more time to wait; zero when there is none,
    /// or once <see cref="MostCredited"/> has been given in all.</summary>
    public TimeSpan TakeOwed()
    {
        var owed = _lag.Total - _lagAtStart - _credited;
        if (owed <= TimeSpan.Zero || _credited >= MostCredited)
            return TimeSpan.Zero;
        _credited += owed;
        return owed;
    }
}
