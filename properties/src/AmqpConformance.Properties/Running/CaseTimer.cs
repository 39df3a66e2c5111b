using System.Diagnostics;

namespace AmqpConformance.Properties.Running;

/// <summary>A timer on a <see cref="CaseClock"/>: due at a timestamp of the case's clock, fired by whichever comes
/// first, a system timer set for the same span of real time (so nothing ever waits longer than it would with real
/// timers) or the harness skipping the clock past it. Periodic timers re-arm from their due time. The callback runs on
/// the thread pool.</summary>
internal sealed class CaseTimer : ITimer
{
    private readonly object _gate = new();
    private readonly CaseClock _clock;
    private readonly TimerCallback _callback;
    private readonly object? _state;
    private readonly Timer _real;
    private long _periodTicks;
    private bool _disposed;

    public CaseTimer(CaseClock clock, TimerCallback callback, object? state)
    {
        _clock = clock;
        _callback = callback;
        _state = state;
        _real = new Timer(static s => ((CaseTimer)s!).FireIfDue(), this, Timeout.Infinite, Timeout.Infinite);
    }

    /// <summary>The case-clock timestamp at which it fires next; <see cref="long.MaxValue"/> when disarmed.</summary>
    public long DueTimestamp { get; private set; } = long.MaxValue;

    /// <inheritdoc />
    public bool Change(TimeSpan dueTime, TimeSpan period)
    {
        lock (_gate)
        {
            if (_disposed)
                return false;
            _periodTicks =
                period == Timeout.InfiniteTimeSpan || period <= TimeSpan.Zero ? 0 : CaseClock.ToTicks(period);
            if (dueTime == Timeout.InfiniteTimeSpan)
            {
                DueTimestamp = long.MaxValue;
                _real.Change(Timeout.Infinite, Timeout.Infinite);
                _clock.Disarm(this);
                return true;
            }
            ArgumentOutOfRangeException.ThrowIfLessThan(dueTime, TimeSpan.Zero);
            DueTimestamp = _clock.GetTimestamp() + CaseClock.ToTicks(dueTime);
            _real.Change(dueTime, Timeout.InfiniteTimeSpan);
            _clock.Arm(this);
            return true;
        }
    }

    /// <summary>Fires if the case clock has reached the due time (a real timer may fire a little early for a timer that
    /// was re-armed by a skip: then it re-arms itself for the rest).</summary>
    internal void FireIfDue()
    {
        lock (_gate)
        {
            if (_disposed || DueTimestamp == long.MaxValue)
                return;
            long now = _clock.GetTimestamp();
            if (now < DueTimestamp)
            {
                _real.Change(Stopwatch.GetElapsedTime(now, DueTimestamp), Timeout.InfiniteTimeSpan);
                return;
            }
            if (_periodTicks > 0)
            {
                DueTimestamp = Math.Max(DueTimestamp + _periodTicks, now + 1);
                _real.Change(Stopwatch.GetElapsedTime(now, DueTimestamp), Timeout.InfiniteTimeSpan);
            }
            else
            {
                DueTimestamp = long.MaxValue;
                _clock.Disarm(this);
            }
        }
        ThreadPool.UnsafeQueueUserWorkItem(static t => t._callback(t._state), this, preferLocal: false);
    }

    /// <inheritdoc />
    public void Dispose()
    {
        lock (_gate)
        {
            if (_disposed)
                return;
            _disposed = true;
            DueTimestamp = long.MaxValue;
            _clock.Disarm(this);
        }
        _real.Dispose();
    }

    /// <inheritdoc />
    public ValueTask DisposeAsync()
    {
        Dispose();
        return ValueTask.CompletedTask;
    }
}
