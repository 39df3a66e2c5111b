using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (own timers): a background writer (copy, complete on enqueue) whose disposal races its loop against
/// <c>Task.Delay(1.5 s)</c> on the system clock (<c>Task.WhenAny</c>, the pattern many clients use) and gives up if the
/// delay wins.
/// </summary>
public sealed class DelayRaceDrainWriter(WriterContext context) : StagedZooWriter(context, "delay-race-drain")
{
    /// <summary>How long disposal lets the loop drain.</summary>
    public static TimeSpan DrainWait { get; } = TimeSpan.FromMilliseconds(1500);

    /// <inheritdoc />
    protected override async Task<bool> WaitForDrainAsync()
    {
        using var stopDelay = new CancellationTokenSource();
        var winner = await Task.WhenAny(Loop, Task.Delay(DrainWait, stopDelay.Token)).ConfigureAwait(false);
        await stopDelay.CancelAsync().ConfigureAwait(false);
        return winner == Loop;
    }
}
