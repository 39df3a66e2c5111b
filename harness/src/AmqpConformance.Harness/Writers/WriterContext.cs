using System.Buffers;
using System.IO.Pipelines;

namespace AmqpConformance.Harness.Writers;

/// <summary>What a frame writer is given: where to write, what to rent from, and the negotiated frame_max.</summary>
/// <param name="Output">The connection's output. The writer owns writing and flushing it; it does not complete it.</param>
/// <param name="Pool">The pool every buffer the writer needs must come from (and go back to), so the harness sees each rental.</param>
/// <param name="FrameMax">The negotiated frame_max; 0 means unlimited.</param>
public sealed record WriterContext(PipeWriter Output, ArrayPool<byte> Pool, int FrameMax)
{
    /// <summary>Capacity of a writer's internal queue, where it has one (the background writer's
    /// bounded channel defaults to 128, as in RabbitMQ.Client).</summary>
    public int QueueCapacity { get; init; } = 128;
}
