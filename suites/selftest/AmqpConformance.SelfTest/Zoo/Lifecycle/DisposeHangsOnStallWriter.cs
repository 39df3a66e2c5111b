using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Lifecycle;

/// <summary>
/// DELIBERATELY BROKEN: a background writer whose DisposeAsync completes the queue and awaits its loop with no drain
/// timeout and no way to abort the loop's pending flush. While the transport accepts bytes this drains and returns;
/// when the transport is stalled at disposal (the peer stopped reading), the loop's flush never completes and neither
/// does DisposeAsync.
/// </summary>
public sealed class DisposeHangsOnStallWriter(WriterContext context)
    : StagedZooWriter(context, "dispose-hangs-on-stall")
{
    protected override async Task<bool> WaitForDrainAsync()
    {
        // BUG: no drain timeout and no CancelPendingFlush: a loop stuck in a flush to a stalled transport keeps this
        // waiting forever.
        await Loop.ConfigureAwait(false);
        return true;
    }
}
