namespace AmqpConformance.SelfTest.Zoo.Visibility;

/// <summary>
/// DELIBERATELY BROKEN: a batching writer (complete after the flush that carried the command) that cancels a queued
/// call by tombstoning its entry, and whose loop writes each entry it takes and flushes only "when nothing more is
/// queued", a test it makes right after writing an entry. An entry it finds tombstoned is skipped with a bare
/// <c>continue</c>, so when the last queued entry is a cancelled call, the entries written before it are never flushed:
/// their calls hang until another call comes (and for ever if none does, even through disposal, whose drain sees the
/// loop end). Runs without a cancelled call at the end of the queue are flushed right.
/// </summary>
public sealed class TombstoneSkipsFlushWriter(AmqpConformance.Harness.Writers.WriterContext context)
    : TombstoneQueueZooWriter(context, "tombstone-skips-flush")
{
    /// <inheritdoc />
    protected override bool FlushDecidedAfterWriteOnly => true;
}
