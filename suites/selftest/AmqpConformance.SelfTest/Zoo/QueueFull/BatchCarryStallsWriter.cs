using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.QueueFull;

/// <summary>
/// DELIBERATELY BROKEN: a queued writer that takes its batch by dequeuing until the queue is empty and, when it reads
/// one entry past the 32-command cap, keeps that entry aside to start the next batch. The loop goes on while the queue
/// is not empty; when the entry kept aside was the last one, the queue is empty, the loop waits for the next call, and
/// that entry's call waits with it: for ever when no call follows, through disposal too.
/// </summary>
public sealed class BatchCarryStallsWriter(WriterContext context) : QueuedZooWriter(context, "batch-carry-stalls")
{
    private CompletionEntry? _carried;

    protected override int TakeBatch(CompletionEntry[] batch)
    {
        int count = 0;
        if (_carried is { } carried)
        {
            batch[count++] = carried;
            _carried = null;
        }
        while (TryDequeue(out var entry))
        {
            // BUG: the entry read past the cap waits outside the queue, where the loop's "while the queue is not empty"
            // cannot see it.
            if (count == batch.Length)
            {
                _carried = entry;
                break;
            }
            batch[count++] = entry;
        }
        return count;
    }
}
