namespace AmqpConformance.Harness.Faults;

/// <summary>
/// The time source of one <see cref="FaultPump"/>: real (sleeps on a <see cref="TimeProvider"/>) or
/// virtual (a counter that jumps forward, no sleeping). One clock per pump: a virtual clock is not
/// thread-safe and must only be advanced by its pump.
/// </summary>
public sealed class FaultClock
{
    private readonly long _start;
    private TimeSpan _virtualNow;

    /// <summary>Creates a clock; <paramref name="time"/> defaults to <see cref="TimeProvider.System"/>.</summary>
    public FaultClock(FaultTimeMode mode, TimeProvider? time = null)
    {
        Mode = mode;
        Time = time ?? TimeProvider.System;
        _start = Time.GetTimestamp();
    }

    /// <summary>Whether delays are slept or only counted.</summary>
    public FaultTimeMode Mode { get; }

    /// <summary>The provider real delays and chunk timestamps use.</summary>
    public TimeProvider Time { get; }

    /// <summary>Time since the clock was created (real), or the sum of all delays so far (virtual).</summary>
    public TimeSpan Now => Mode == FaultTimeMode.Virtual ? _virtualNow : Time.GetElapsedTime(_start);

    /// <summary>The clock time of an event stamped with <paramref name="timestamp"/> from <see cref="Time"/>
    /// (real mode); in virtual mode, <see cref="Now"/>.</summary>
    public TimeSpan TimeOf(long timestamp) =>
        Mode == FaultTimeMode.Virtual ? _virtualNow : Time.GetElapsedTime(_start, timestamp);

    /// <summary>Completes once <see cref="Now"/> reached <paramref name="at"/> (at once when it already has,
    /// and always at once in virtual mode, which just moves <see cref="Now"/> forward). Never early: a real delay is
    /// rounded up to whole milliseconds, the resolution of <see cref="TimeProvider"/> timers.</summary>
    public async ValueTask DelayUntilAsync(TimeSpan at, CancellationToken cancellationToken)
    {
        if (Mode == FaultTimeMode.Virtual)
        {
            if (at > _virtualNow)
                _virtualNow = at;
            return;
        }
        TimeSpan remaining = at - Now;
        // Task.Delay and timers count whole milliseconds and truncate the rest: round up, or a delay would end up to a
        // millisecond before its time (a bandwidth toxic would run slightly fast).
        if (remaining > TimeSpan.Zero)
            await Task.Delay(
                    TimeSpan.FromMilliseconds(Math.Ceiling(remaining.TotalMilliseconds)),
                    Time,
                    cancellationToken
                )
                .ConfigureAwait(false);
    }

    /// <summary>Waits <paramref name="delay"/> from now (see <see cref="DelayUntilAsync"/>).</summary>
    public ValueTask DelayAsync(TimeSpan delay, CancellationToken cancellationToken) =>
        DelayUntilAsync(Now + delay, cancellationToken);
}
