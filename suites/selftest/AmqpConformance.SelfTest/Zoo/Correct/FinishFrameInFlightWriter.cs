using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (own timers): a background writer (copy, complete on enqueue) that, like a client on a socket it cannot
/// interrupt, does not cancel the write in progress when disposal gives up: after <c>Task.Delay(1 s)</c> on the system
/// clock it stops taking queued commands, lets the command in flight finish its flush (waiting as long again, or as long
/// as it was made with), drops the rest and returns; only if that flush is still held then does it cancel it. Its disposal therefore returns right
/// after the output takes the flush it was waiting for, which may be after the harness released a held output; its
/// give-up came while the output was held (once, in CI, <see cref="MonitorWaitThreadWriter"/>'s did the same by
/// chance, and it was blamed for the publishes it dropped).
/// </summary>
public sealed class FinishFrameInFlightWriter(WriterContext context, TimeSpan drainWait, TimeSpan flightWait)
    : StagedZooWriter(context, "finish-frame-in-flight")
{
    /// <summary>How long the zoo's writer lets the loop drain, and then how long it lets the command in flight
    /// finish.</summary>
    public static TimeSpan DrainWait { get; } = TimeSpan.FromSeconds(1);

    /// <summary>The zoo's writer: <see cref="DrainWait"/> for each wait.</summary>
    public FinishFrameInFlightWriter(WriterContext context)
        : this(context, DrainWait, DrainWait) { }

    private volatile bool _givingUp;

    /// <inheritdoc />
    private protected override void BeforeWrite(StagedCommand current)
    {
        if (_givingUp)
            throw new ObjectDisposedException(Name, "Disposal gave up draining the queue.");
    }

    /// <inheritdoc />
    protected override async Task<bool> WaitForDrainAsync()
    {
        if (await EndsWithinAsync(drainWait).ConfigureAwait(false))
            return true;
        _givingUp = true;
        return await EndsWithinAsync(flightWait).ConfigureAwait(false);
    }

    private async Task<bool> EndsWithinAsync(TimeSpan wait)
    {
        using var stopDelay = new CancellationTokenSource();
        var winner = await Task.WhenAny(Loop, Task.Delay(wait, stopDelay.Token)).ConfigureAwait(false);
        await stopDelay.CancelAsync().ConfigureAwait(false);
        return winner == Loop;
    }
}
