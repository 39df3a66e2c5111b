using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (unusual): a queued writer whose calls return a <see cref="ValueTask"/> backed by a pooled completion source
/// instead of a task, completed after the flush that carried the command, each source reused only once its caller has
/// taken the result (the <see cref="QueuedZooWriter"/> design without a bug). Allocates nothing per call; callers that
/// await late, or never until the end, are served as well as those that await at once.
/// </summary>
public sealed class PooledCompletionWriter(WriterContext context) : QueuedZooWriter(context, "pooled-completion");
