using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (own timers): the inline writer a newcomer writes from the README's quickstart, whose DisposeAsync knows
/// nothing of <see cref="WriterContext.DrainTimeout"/> or <see cref="WriterContext.TimeProvider"/>: it waits for the
/// write in progress with <c>SemaphoreSlim.WaitAsync(TimeSpan.FromSeconds(5))</c> on the system clock, then cancels the
/// pending flush and waits once more as long. It gives up within 10 s of real time, inside the factory's default
/// <see cref="FrameWriterFactory.DisposeTimeout"/> of 30 s, so a stalled disposal costs real time and nothing else.
/// </summary>
public sealed class OwnTimeoutDisposeWriter(WriterContext context) : InlineZooWriter(context, "own-timeout-dispose")
{
    /// <summary>How long disposal waits for the write in progress, and again after cancelling its flush.</summary>
    public static TimeSpan DisposeWait { get; } = TimeSpan.FromSeconds(5);

    /// <inheritdoc />
    public override ValueTask DisposeAsync() => DisposeOnOwnTimerAsync(DisposeWait);
}
