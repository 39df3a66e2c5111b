using System.Diagnostics;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// The clock of one writer-level case: real time, plus whatever the harness skipped. The case's broker reads its frame timestamps from
/// it (<see cref="Protocol.Recording.FrameLogOptions.Clock"/>) and every call time comes from the broker's log, so frames, calls and
/// faults stay on one time line when the harness moves it forward instead of waiting out a bound in real time.
/// </summary>
/// <remarks>Only timestamps come from here; timers and delays are the system's (a case never waits on this clock).</remarks>
internal sealed class CaseClock : TimeProvider
{
    private long _skippedTicks;

    /// <summary>How much time was skipped so far.</summary>
    public TimeSpan Skipped => Stopwatch.GetElapsedTime(0, Interlocked.Read(ref _skippedTicks));

    /// <inheritdoc />
    public override long TimestampFrequency => Stopwatch.Frequency;

    /// <inheritdoc />
    public override long GetTimestamp() => Stopwatch.GetTimestamp() + Interlocked.Read(ref _skippedTicks);

    /// <summary>Moves the clock forward by <paramref name="span"/> at once.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="span"/> is negative.</exception>
    public void Skip(TimeSpan span)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(span, TimeSpan.Zero);
        Interlocked.Add(ref _skippedTicks, (long)(span.TotalSeconds * Stopwatch.Frequency));
    }
}
