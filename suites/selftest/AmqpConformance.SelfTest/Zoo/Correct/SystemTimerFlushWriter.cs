using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (own timers): the delayed-flush design (<see cref="DelayedFlushZooWriter"/>: write under a lock, complete
/// after the flush that carried the bytes) with its 1 ms flush timer a <see cref="System.Threading.Timer"/> on the
/// system clock, not on <see cref="WriterContext.TimeProvider"/>, and its disposal's final flush bounded by a second
/// <see cref="System.Threading.Timer"/> (1 s) that gives up on it.
/// </summary>
public sealed class SystemTimerFlushWriter(WriterContext context)
    : DelayedFlushZooWriter(context, "system-timer-flush", TimeProvider.System)
{
    /// <summary>How long disposal waits for its final flush.</summary>
    public static TimeSpan FinalFlushWait { get; } = TimeSpan.FromSeconds(1);

    /// <inheritdoc />
    protected override bool ClearScheduledLate => false;

    /// <inheritdoc />
    protected override async Task<bool> WaitForFinalFlushAsync(Task final)
    {
        var expired = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using var timer = new Timer(
            static s => ((TaskCompletionSource)s!).TrySetResult(),
            expired,
            FinalFlushWait,
            Timeout.InfiniteTimeSpan
        );
        return await Task.WhenAny(final, expired.Task).ConfigureAwait(false) == final;
    }
}
