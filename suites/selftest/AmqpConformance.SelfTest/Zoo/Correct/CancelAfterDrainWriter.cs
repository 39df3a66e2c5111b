using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (own timers): a background writer (copy, complete on enqueue) whose disposal bounds its drain with a
/// <see cref="CancellationTokenSource"/> of its own, <c>CancelAfter(2 s)</c> on the system clock, and then gives up as
/// the reference writers do (cancels the loop and the pending flush, waits for the loop within
/// <see cref="WriterContext.GiveUpWait"/>).
/// </summary>
public sealed class CancelAfterDrainWriter(WriterContext context) : StagedZooWriter(context, "cancel-after-drain")
{
    /// <summary>How long disposal lets the loop drain.</summary>
    public static TimeSpan DrainWait { get; } = TimeSpan.FromSeconds(2);

    /// <inheritdoc />
    protected override async Task<bool> WaitForDrainAsync()
    {
        using var expiry = new CancellationTokenSource();
        expiry.CancelAfter(DrainWait);
        try
        {
            await Loop.WaitAsync(expiry.Token).ConfigureAwait(false);
            return true;
        }
        catch (OperationCanceledException) when (expiry.IsCancellationRequested)
        {
            return false;
        }
    }
}
