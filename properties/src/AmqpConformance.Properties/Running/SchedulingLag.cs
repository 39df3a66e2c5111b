namespace AmqpConformance.Properties.Running;

/// <summary>How long this process has been kept from running, measured by a ticker that wakes every
/// <see cref="Period"/>: a tick that comes later than due by more than <see cref="Tolerance"/> adds its lateness to
/// <see cref="Total"/>. The process's meter ticks on a dedicated thread sleeping between ticks, so what it measures is
/// the machine's: a loaded CI runner, <c>nice</c>, a stopped process delay its ticks exactly as they delay the writer's
/// own threads, and a real-time bound extended by the lag it saw
/// (<see cref="BoundedWait.CompletesWithinRunnableAsync"/>) gives the writer the time it was meant to get to run. A
/// thread pool starved by the writer's own blocking does not delay it: that time is the writer's, not the
/// machine's.</summary>
internal sealed class SchedulingLag : ISchedulingLag, IDisposable
{
    private static readonly Lazy<SchedulingLag> ProcessMeter = new(() =>
        new SchedulingLag(
            TimeProvider.System,
            TimeSpan.FromMilliseconds(10),
            TimeSpan.FromMilliseconds(5),
            onThread: true
        )
    );

    private readonly TimeProvider _time;
    private readonly ITimer? _timer;
    private volatile bool _stopped;
    private readonly object _gate = new();
    private long _lastTick;
    private TimeSpan _total;

    // The late ticks, oldest first (a ring of LogCapacity): when each came and how late, so the lag within an interval
    // can be told.
    private readonly (long At, TimeSpan Late)[] _lateTicks = new (long, TimeSpan)[LogCapacity];
    private long _lateLogged;
    private TaskCompletionSource _nextTick = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Starts a meter ticking by a timer of <paramref name="time"/> (a test's clock), or, with
    /// <paramref name="onThread"/>, on a dedicated background thread that sleeps <paramref name="period"/> between
    /// ticks and reads <paramref name="time"/>.</summary>
    public SchedulingLag(TimeProvider time, TimeSpan period, TimeSpan tolerance, bool onThread = false)
    {
        ArgumentNullException.ThrowIfNull(time);
        _time = time;
        Period = period;
        Tolerance = tolerance;
        _lastTick = time.GetTimestamp();
        if (!onThread)
        {
            _timer = time.CreateTimer(static s => ((SchedulingLag)s!).Observe(), this, period, period);
            return;
        }
        new Thread(() =>
        {
            while (!_stopped)
            {
                Thread.Sleep(period);
                Observe();
            }
        })
        {
            IsBackground = true,
            Name = "amqpc-scheduling-lag",
        }.Start();
    }

    /// <summary>The process's meter (10 ms ticks, 5 ms tolerance), started on first use; it runs for the life of the
    /// process.</summary>
    public static SchedulingLag Process => ProcessMeter.Value;

    /// <summary>How often the meter ticks.</summary>
    public TimeSpan Period { get; }

    /// <summary>How late a tick may be without counting: timer resolution and ordinary scheduling.</summary>
    public TimeSpan Tolerance { get; }

    /// <inheritdoc />
    public TimeSpan Total
    {
        get
        {
            lock (_gate)
                return _total;
        }
    }

    /// <inheritdoc />
    public Task NextTickAsync()
    {
        lock (_gate)
            return _nextTick.Task;
    }

    /// <summary>Records a tick at <paramref name="now"/> (a timestamp of the meter's clock): any lateness beyond
    /// <see cref="Tolerance"/> since the tick before counts.</summary>
    internal void Observe(long now)
    {
        TaskCompletionSource ticked;
        lock (_gate)
        {
            var late = _time.GetElapsedTime(_lastTick, now) - Period;
            if (late > Tolerance)
            {
                _total += late;
                _lateTicks[(int)(_lateLogged++ % LogCapacity)] = (now, late);
            }
            _lastTick = now;
            ticked = _nextTick;
            _nextTick = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        }
        ticked.TrySetResult();
    }

    private void Observe() => Observe(_time.GetTimestamp());

    /// <summary>How many late ticks the meter remembers (at one a period, 40 s of a machine that never lets it run on
    /// time).</summary>
    public const int LogCapacity = 4096;

    /// <inheritdoc />
    public long Now => _time.GetTimestamp();

    /// <inheritdoc />
    public TimeSpan RunnableBetween(long from, long to)
    {
        var runnable = _time.GetElapsedTime(from, to) - LagWithin(from, to);
        return runnable > TimeSpan.Zero ? runnable : TimeSpan.Zero;
    }

    /// <inheritdoc />
    public TimeSpan LagWithin(long from, long to)
    {
        var lag = TimeSpan.Zero;
        lock (_gate)
        {
            int remembered = (int)Math.Min(_lateLogged, LogCapacity);
            if (_lateLogged > LogCapacity)
            {
                // Forgotten ticks may have fallen in the interval: everything counts as lag, so nothing is judged on
                // it.
                var oldest = _lateTicks[(int)(_lateLogged % LogCapacity)];
                if (oldest.At >= from)
                    return _time.GetElapsedTime(from, to);
            }
            for (int i = 0; i < remembered; i++)
            {
                var (at, late) = _lateTicks[i];
                // The meter was kept from running somewhere in the late tick's span (its period and lateness before
                // it): any overlap with the interval counts the whole lateness, so the time left to the writer is never
                // overstated.
                long spanStart = at - (long)((Period + late).TotalSeconds * _time.TimestampFrequency);
                if (at >= from && spanStart <= to)
                    lag += late;
            }
        }
        return lag;
    }

    /// <summary>Stops the meter (a test's own; the process's runs for ever).</summary>
    public void Dispose()
    {
        _stopped = true;
        _timer?.Dispose();
    }
}

/// <summary>A measure of how long the process has been kept from running (<see cref="SchedulingLag"/>; a test's
/// fake).</summary>
internal interface ISchedulingLag
{
    /// <summary>The lag seen so far: it only grows.</summary>
    TimeSpan Total { get; }

    /// <summary>Completes at the meter's next tick, once it has looked at the time since the last one.</summary>
    Task NextTickAsync();

    /// <summary>The meter's clock now, as a timestamp (<see cref="TimeProvider.GetTimestamp"/> of its clock).</summary>
    long Now { get; }

    /// <summary>The lag the meter saw within the interval from <paramref name="from"/> to <paramref name="to"/>
    /// (timestamps of <see cref="Now"/>), counted generously: every late tick whose late span touches the interval
    /// counts whole, and an interval older than the meter remembers counts whole. Lag the meter has not yet seen (its
    /// next tick has not come) is not counted: wait for <see cref="NextTickAsync"/> first.</summary>
    TimeSpan LagWithin(long from, long to);

    /// <summary>The real time from <paramref name="from"/> to <paramref name="to"/> (timestamps of <see cref="Now"/>)
    /// in which the process could run: the time less <see cref="LagWithin"/>; never negative.</summary>
    TimeSpan RunnableBetween(long from, long to);
}
