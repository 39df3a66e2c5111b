namespace AmqpConformance.Properties.Running;

/// <summary>Judges from timed trips through the thread pool whether the machine has been scheduling the process
/// promptly for a whole window: every trip back within <see cref="PromptTrip"/>, for the whole window on end. A slow
/// trip restarts the window from when it came back. Times are offsets on one stopwatch; trips are reported in
/// order.</summary>
/// <param name="window">How long the trips must have been prompt on end; zero or less is never reached.</param>
internal sealed class PromptSchedulingWindow(TimeSpan window)
{
    private TimeSpan _promptSince;

    /// <summary>The longest trip that counts as prompt: a trip takes microseconds when a core is free, and a time slice
    /// or more when threads queue for the CPU.</summary>
    public static TimeSpan PromptTrip { get; } = TimeSpan.FromMilliseconds(1);

    /// <summary>Whether the window has been reached.</summary>
    public bool Reached { get; private set; }

    /// <summary>Records a trip that left at <paramref name="left"/> and came back at <paramref name="back"/>; returns
    /// whether it was prompt (a slow one restarts the window at <paramref name="back"/>).</summary>
    public bool Trip(TimeSpan left, TimeSpan back)
    {
        if (back - left > PromptTrip)
        {
            _promptSince = back;
            return false;
        }
        if (window > TimeSpan.Zero && back - _promptSince >= window)
            Reached = true;
        return true;
    }

    /// <summary>Restarts the window at <paramref name="at"/> (after the waiter gave the CPU up, say).</summary>
    public void Restart(TimeSpan at) => _promptSince = at;

    /// <summary>Waits <paramref name="limit"/> of real time, or less: until trips through the thread pool have been
    /// prompt for <paramref name="window"/> on end. A thread the machine keeps off the CPU is what a real-time wait for
    /// a writer is for, and the same load delays the trips; with none over a window longer than a scheduler's period, a
    /// writer thread that had work has run by then. After a slow trip the waiter gives the CPU up for a moment (the
    /// writer may need it more). A window of zero, or not shorter than the limit, waits the whole limit. Returns the
    /// time waited. Time is read, and the whole limit waited, on <paramref name="time"/> (the system's clock when null;
    /// a test's own makes trips look prompt or slow, or moves the clock past the limit).</summary>
    public static async Task<TimeSpan> WaitAsync(TimeSpan window, TimeSpan limit, TimeProvider? time = null)
    {
        time ??= TimeProvider.System;
        long start = time.GetTimestamp();
        if (window <= TimeSpan.Zero || window >= limit)
        {
            await Task.Delay(limit, time).ConfigureAwait(false);
            return time.GetElapsedTime(start);
        }
        var prompt = new PromptSchedulingWindow(window);
        var trip = new ThreadPoolRoundTrip();
        var elapsed = TimeSpan.Zero;
        while (!prompt.Reached && elapsed < limit)
        {
            var left = elapsed;
            await trip;
            elapsed = time.GetElapsedTime(start);
            if (prompt.Trip(left, elapsed))
                continue;
            await Task.Delay(1).ConfigureAwait(false);
            elapsed = time.GetElapsedTime(start);
            prompt.Restart(elapsed);
        }
        return elapsed;
    }
}
