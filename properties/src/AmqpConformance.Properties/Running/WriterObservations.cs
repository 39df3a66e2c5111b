using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Properties.Running;

/// <summary>What the harness observes of a case only where it owns the writer's pools and output (writer level): the
/// output it followed, the writer's and the callers' pools, the disposal it made, what it saw while the writer settled
/// (visibility lapses, the backpressure sample), and when the writer's factory says its calls complete. At client level
/// there is none, and the evidence leaves these out (<see cref="EvidenceBuilder"/>).</summary>
/// <param name="Output">The writer's output.</param>
/// <param name="WriterPool">The pool the writer rents from.</param>
/// <param name="CallerPool">The pool the callers' body arrays come from (poisoned on completion).</param>
/// <param name="Lifecycle">The case's disposal of the writer.</param>
/// <param name="Observer">What the harness saw while the writer settled.</param>
/// <param name="DeclaredCompletion">The factory's <see cref="FrameWriterFactory.Completion"/>.</param>
internal sealed record WriterObservations(
    ControlledOutput Output,
    TrackingArrayPool WriterPool,
    TrackingArrayPool CallerPool,
    CaseLifecycle Lifecycle,
    CaseObserver Observer,
    WriterCompletion DeclaredCompletion
);
