using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: a queued writer whose callers await pooled completion sources, and whose loop returns each
/// source to the pool as soon as it has signalled it ("we are done with it"), instead of leaving that to the caller
/// once it has taken the result. A caller that awaits at once usually takes the result first. A caller that pipelines
/// (makes many publishes, then awaits them) comes back to a source already reset for a later call: its await throws, or
/// waits for someone else's publish.
/// </summary>
public sealed class SourceRecycledOnSignalWriter(WriterContext context)
    : QueuedZooWriter(context, "source-recycled-on-signal")
{
    // BUG: the loop recycles the source when it signals it; the caller's ValueTask may not have been consumed yet.
    protected override bool RecycleWhenSignalled => true;
}
