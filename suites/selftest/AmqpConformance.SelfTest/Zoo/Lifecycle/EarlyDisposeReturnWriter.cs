using System.Diagnostics;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Lifecycle;

/// <summary>
/// DELIBERATELY BROKEN: a background (bounded channel, copy, complete on enqueue) writer whose DisposeAsync waits until
/// the queue is empty rather than until its loop has finished. The loop takes a command off the queue before it writes
/// it, so DisposeAsync can return while the last command is still being written: its bytes go into the output after
/// disposal (or, if the connection has completed the output by then, are lost though the call reported success).
/// Disposal of a writer whose loop is idle is correct.
/// </summary>
public sealed class EarlyDisposeReturnWriter(WriterContext context) : StagedZooWriter(context, "early-dispose-return")
{
    protected override async Task<bool> WaitForDrainAsync()
    {
        // BUG: "drained" is judged by the queue's count, not by the loop's completion: the command the loop has just
        // taken off the queue is still being written when this returns.
        var waited = Stopwatch.StartNew();
        while (QueuedCount > 0 && waited.Elapsed < Context.DrainTimeout)
            await Task.Delay(1).ConfigureAwait(false);
        return QueuedCount == 0;
    }
}
