namespace AmqpConformance.Toxiproxy.Tests.Support;

/// <summary>
/// A <see cref="TimeProvider"/> whose time moves only when the test moves it, and which tells the test when something
/// is waiting on it: <see cref="WhenTimerScheduledAsync"/> completes once a timer is due at a finite time, and
/// <see cref="AdvanceToNextTimer"/> jumps exactly to the earliest one and fires it. Driving a fault proxy this way is a
/// discrete-event simulation: each toxic's delay becomes one step, whatever the machine's load.
/// </summary>
/// <remarks>Timer callbacks run on the thread that advances, outside the provider's lock (as
/// Microsoft.Extensions.TimeProvider.Testing's FakeTimeProvider does). Thread-safe.</remarks>
internal sealed class ManualTimeProvider : TimeProvider
{
    private static readonly DateTimeOffset Epoch = new(2000, 1, 1, 0, 0, 0, TimeSpan.Zero);
    private readonly object _gate = new();
    private readonly List<ManualTimer> _timers = [];
    private TaskCompletionSource _scheduled = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private TimeSpan _now;

    /// <summary>Time since the provider was created, as far as the test advanced it.</summary>
    public TimeSpan Now
    {
        get
        {
            lock (_gate)
                return _now;
        }
    }

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public override long GetTimestamp()
    {
        lock (_gate)
            return _now.Ticks;
    }

    public override DateTimeOffset GetUtcNow()
    {
        lock (_gate)
            return Epoch + _now;
    }

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        var timer = new ManualTimer(this, callback, state);
        timer.Change(dueTime, period);
        return timer;
    }

    /// <summary>Completes once at least one timer is scheduled (at once if one already is).</summary>
    public Task WhenTimerScheduledAsync(CancellationToken cancellationToken)
    {
        lock (_gate)
        {
            if (_timers.Any(t => t.Due is not null))
                return Task.CompletedTask;
            return _scheduled.Task.WaitAsync(cancellationToken);
        }
    }

    /// <summary>Moves time to the earliest scheduled timer and fires every timer due by then; returns the new
    /// time.</summary>
    /// <exception cref="InvalidOperationException">No timer is scheduled.</exception>
    public TimeSpan AdvanceToNextTimer()
    {
        TimeSpan until;
        lock (_gate)
            until = _timers
                .Where(t => t.Due is not null)
                .Select(t => t.Due!.Value)
                .DefaultIfEmpty(TimeSpan.MinValue)
                .Min();
        if (until == TimeSpan.MinValue)
            throw new InvalidOperationException("No timer is scheduled.");
        FireUntil(until);
        return until;
    }

    /// <summary>Moves time forward by <paramref name="by"/>, firing every timer that falls due on the way, in
    /// order.</summary>
    public void Advance(TimeSpan by)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(by, TimeSpan.Zero);
        TimeSpan until;
        lock (_gate)
            until = _now + by;
        FireUntil(until);
    }

    private void FireUntil(TimeSpan until)
    {
        while (true)
        {
            ManualTimer? next;
            lock (_gate)
            {
                next = _timers.Where(t => t.Due <= until).OrderBy(t => t.Due).FirstOrDefault();
                if (next is null)
                {
                    if (until > _now)
                        _now = until;
                    return;
                }
                if (next.Due > _now)
                    _now = next.Due!.Value;
                next.Due = next.Period is { } p && p > TimeSpan.Zero && p != Timeout.InfiniteTimeSpan ? _now + p : null;
            }
            next.Fire();
        }
    }

    private void Schedule(ManualTimer timer, TimeSpan dueTime, TimeSpan period)
    {
        TaskCompletionSource? signal = null;
        lock (_gate)
        {
            if (!_timers.Contains(timer))
                _timers.Add(timer);
            timer.Period = period;
            timer.Due =
                dueTime == Timeout.InfiniteTimeSpan ? null : _now + (dueTime < TimeSpan.Zero ? TimeSpan.Zero : dueTime);
            if (timer.Due is not null)
            {
                signal = _scheduled;
                _scheduled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            }
        }
        signal?.TrySetResult();
    }

    private void Remove(ManualTimer timer)
    {
        lock (_gate)
            _timers.Remove(timer);
    }

    private sealed class ManualTimer(ManualTimeProvider owner, TimerCallback callback, object? state) : ITimer
    {
        private bool _disposed;

        public TimeSpan? Due { get; set; }
        public TimeSpan? Period { get; set; }

        public bool Change(TimeSpan dueTime, TimeSpan period)
        {
            if (Volatile.Read(ref _disposed))
                return false;
            owner.Schedule(this, dueTime, period);
            return true;
        }

        public void Fire() => callback(state);

        public void Dispose()
        {
            Volatile.Write(ref _disposed, true);
            owner.Remove(this);
        }

        public ValueTask DisposeAsync()
        {
            Dispose();
            return ValueTask.CompletedTask;
        }
    }
}
