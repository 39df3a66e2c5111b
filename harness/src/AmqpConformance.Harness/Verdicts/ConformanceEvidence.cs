using AmqpConformance.Harness.Pooling;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Harness.Verdicts;

/// <summary>Everything one run left behind for the checkers: the frames on the wire, the callers' timeline,
/// the pool ledger and what the harness injected or measured.</summary>
/// <remarks>Every timestamp (calls, frames, fault, lifecycle) is on the clock of the frame log the frames come
/// from.</remarks>
public sealed record ConformanceEvidence
{
    /// <summary>The frames received from the writer (other directions are ignored by the checkers), in wire
    /// order.</summary>
    public required IReadOnlyList<FrameRecord> Frames { get; init; }

    /// <summary>Every publish call made, by id.</summary>
    public required IReadOnlyList<CallRecord> Calls { get; init; }

    /// <summary>The negotiated frame_max (0 = unlimited).</summary>
    public required int FrameMax { get; init; }

    /// <summary>The writer's pool ledger, taken after the writer was disposed; null where the harness does not own the
    /// writer's pool (client level).</summary>
    public PoolLedgerReport? Pool { get; init; }

    /// <summary>Misuse of the callers' body arrays (writes after the harness poisoned them on completion).</summary>
    public IReadOnlyList<PoolFinding> CallerArrayFindings { get; init; } = [];

    /// <summary>The broker's or parser's protocol findings (malformed frames, RabbitMQ connection errors,
    /// strict-profile reports...).</summary>
    public IReadOnlyList<ProtocolFinding> Findings { get; init; } = [];

    /// <summary>Bytes left at the end of the stream that do not make a whole frame.</summary>
    public long TrailingPartialBytes { get; init; }

    /// <summary>The transport fault, injected or caused by the broker closing the connection, if one
    /// happened.</summary>
    public TransportFaultRecord? Fault { get; init; }

    /// <summary>When the writer was disposed and what it did afterwards; null where the harness does not dispose the
    /// writer.</summary>
    public LifecycleRecord? Lifecycle { get; init; }

    /// <summary>Calls that had completed successfully but whose bytes were still not flushed when the harness checked,
    /// after waiting the visibility bound, with nothing else going on.</summary>
    public IReadOnlyList<VisibilityLapse> VisibilityLapses { get; init; } = [];

    /// <summary>What the writer held while its output was stalled, when the run stalled it.</summary>
    public BackpressureSample? Backpressure { get; init; }

    /// <summary>Whether publisher confirms were on (delivery tags must map to
    /// <see cref="CallRecord.PublishSequenceNumber"/>).</summary>
    public bool ConfirmsEnabled { get; init; }

    /// <summary>The wire offset of the writer's first output byte (after the protocol header and the handshake);
    /// relates <see cref="CallRecord.BodyOwnerDisposedAtOutputBytes"/> to
    /// <see cref="FrameRecord.WireOffset"/>.</summary>
    public long OutputWireOffset { get; init; }

    /// <summary>When the writer's factory says its calls complete
    /// (<see cref="Writers.FrameWriterFactory.Completion"/>); with <see cref="Writers.WriterCompletion.AfterFlush"/>
    /// the faults invariant also judges <c>succeeded-but-not-delivered</c>.</summary>
    public Writers.WriterCompletion DeclaredCompletion { get; init; }

    /// <summary>Whether the harness followed the writer's output to the end (it owns the output and could read every
    /// frame the writer committed), so that <see cref="CallRecord.OutputEndByte"/> and
    /// <see cref="CallRecord.DeliveredOutputBytesAtCompletion"/> can be trusted; false at client level, and when the
    /// output stopped making sense (the wire-format invariant says why).</summary>
    public bool OutputDeliveryTracked { get; init; }

    /// <summary>Set when the run did not end within its case bound: what the harness was stuck in (threads of its own
    /// inside the writer's code, say a cancellation callback that never returns). The rest of the evidence is what
    /// could be read by then.</summary>
    public string? CaseHung { get; init; }

    /// <summary>Set when the writer used its output (a <see cref="System.IO.Pipelines.PipeWriter"/>, which is not
    /// thread-safe) from two threads at once, or started a flush while an earlier one of its own was pending: what it
    /// did first, and when. Null when it never did, or when the harness does not own the output (client
    /// level).</summary>
    public string? ConcurrentOutputUse { get; init; }

    /// <summary>Frames the writer sent (client to broker), in wire order.</summary>
    public IEnumerable<FrameRecord> Received => Frames.Where(f => f.Direction == FrameDirection.Received);
}
