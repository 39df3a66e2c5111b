namespace AmqpConformance.Harness.Writers;

/// <summary>Bounded waits on a <see cref="TimeProvider"/>, for the waits the framework offers only on the system clock
/// (a <see cref="Task"/> has <see cref="Task.WaitAsync(TimeSpan, TimeProvider)"/> already). A writer uses them with
/// <see cref="WriterContext.TimeProvider"/> so that its drain timeout runs on the harness's clock.</summary>
public static class TimedWaits
{
    /// <summary>Waits to enter <paramref name="gate"/> for at most <paramref name="timeout"/> on
    /// <paramref name="time"/>'s clock; returns whether it entered (as <see cref="SemaphoreSlim.WaitAsync(TimeSpan)"/>
    /// does).</summary>
    /// <exception cref="ArgumentNullException"><paramref name="gate"/> or <paramref name="time"/> is null.</exception>
    /// <exception cref="ObjectDisposedException"><paramref name="gate"/> was disposed.</exception>
    public static async Task<bool> WaitAsync(this SemaphoreSlim gate, TimeSpan timeout, TimeProvider time)
    {
        ArgumentNullException.ThrowIfNull(gate);
        ArgumentNullException.ThrowIfNull(time);
        if (gate.Wait(0))
            return true;
        if (timeout == TimeSpan.Zero)
            return false;
        using var expiry = new CancellationTokenSource(timeout, time);
        try
        {
            await gate.WaitAsync(expiry.Token).ConfigureAwait(false);
            return true;
        }
        catch (OperationCanceledException) when (expiry.IsCancellationRequested)
        {
            return false;
        }
    }
}
