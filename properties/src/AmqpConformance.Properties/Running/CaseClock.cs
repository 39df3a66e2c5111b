using System.Diagnostics;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// The clock of one writer-level case: real time, plus whatever the harness skipped. The case's broker reads its frame
/// timestamps from it (<see cref="Protocol.Recording.FrameLogOptions.Clock"/>), every call time comes from the broker's
/// log, and the writer's own timeouts run on it (<see cref="Harness.Writers.WriterContext.TimeProvider"/>), so frames,
/// calls, faults and the writer's timers stay on one time line when the harness moves it forward instead of waiting out
/// a bound in real time.
/// </summary>
/// <remarks>A timer made here (<see cref="CreateTimer"/>) fires when its due time is reached on this clock: by real
/// time passing, as a system timer would, or at once when <see cref="Skip"/> or <see cref="TrySkipToNextTimer"/> moves
/// the clock past it. Callbacks run on the thread pool, never on the thread that skips. Thread-safe.</remarks>
internal sealed class CaseClock : TimeProvider
{
    private readonly object _gate = new();
    private readonly HashSet<CaseTimer> _armed = [];
    private long _skippedTicks;

    /// <summary>How much time was skipped so far.</summary>
    public TimeSpan Skipped => Stopwatch.GetElapsedTime(0, Interlocked.Read(ref _skippedTicks));

    /// <inheritdoc />
    public override long TimestampFrequency => Stopwatch.Frequency;

    /// <inheritdoc />
    public override long GetTimestamp() => Stopwatch.GetTimestamp() + Interlocked.Read(ref _skippedTicks);

    /// <inheritdoc />
    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        ArgumentNullException.ThrowIfNull(callback);
        var timer = new CaseTimer(this, callback, state);
        timer.Change(dueTime, period);
        return timer;
    }

    /// <summary>Moves the clock forward by <paramref name="span"/> at once, firing every timer that falls
    /// due.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="span"/> is negative.</exception>
    public void Skip(TimeSpan span)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(span, TimeSpan.Zero);
        Interlocked.Add(ref _skippedTicks, ToTicks(span));
        FireDue();
    }

    /// <summary>Moves the clock to the earliest armed timer's due time and fires it, if one falls due within
    /// <paramref name="limit"/> from now; returns false (and moves nothing) when none does.</summary>
    public bool TrySkipToNextTimer(TimeSpan limit)
    {
        long now = GetTimestamp(),
            next = long.MaxValue;
        lock (_gate)
            foreach (var timer in _armed)
                next = Math.Min(next, timer.DueTimestamp);
        if (next == long.MaxValue || next - now > ToTicks(limit))
            return false;
        if (next > now)
            Interlocked.Add(ref _skippedTicks, next - now);
        FireDue();
        return true;
    }

    internal static long ToTicks(TimeSpan span) => (long)(span.TotalSeconds * Stopwatch.Frequency);

    internal void Arm(CaseTimer timer)
    {
        lock (_gate)
            _armed.Add(timer);
    }

    internal void Disarm(CaseTimer timer)
    {
        lock (_gate)
            _armed.Remove(timer);
    }

    private void FireDue()
    {
        long now = GetTimestamp();
        CaseTimer[] due;
        lock (_gate)
            due = [.. _armed.Where(t => t.DueTimestamp <= now)];
        foreach (var timer in due)
            timer.FireIfDue();
    }
}
