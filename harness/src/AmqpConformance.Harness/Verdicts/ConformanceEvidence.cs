using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Harness.Verdicts;

/// <summary>Everything one run left behind for the checkers: the frames on the wire, the callers' timeline,
/// the pool ledger and what the harness injected or measured.</summary>
public sealed record ConformanceEvidence
{
    /// <summary>The frames received from the writer (other directions are ignored by the checkers), in wire order.</summary>
    public required IReadOnlyList<FrameRecord> Frames { get; init; }

    /// <summary>Every publish call made, by id.</summary>
    public required IReadOnlyList<PublishCall> Calls { get; init; }

    /// <summary>The negotiated frame_max (0 = unlimited).</summary>
    public required int FrameMax { get; init; }

    /// <summary>What the tracking pool saw; <see cref="PoolLedgerSummary.Empty"/> at client level, where the harness does not own the pool.</summary>
    public PoolLedgerSummary Pool { get; init; } = PoolLedgerSummary.Empty;

    /// <summary>Whether the pool ledger was observed (writer level) at all.</summary>
    public bool PoolObserved { get; init; }

    /// <summary>The broker's or parser's protocol findings (malformed frames, unparseable trailing bytes...).</summary>
    public IReadOnlyList<ProtocolFinding> Findings { get; init; } = [];

    /// <summary>Bytes left at the end of the stream that do not make a whole frame.</summary>
    public long TrailingPartialBytes { get; init; }

    /// <summary>The injected transport fault, if one fired.</summary>
    public TransportFaultRecord? Fault { get; init; }

    /// <summary>Whether the writer's DisposeAsync completed within the harness's time limit.</summary>
    public bool WriterDisposed { get; init; } = true;

    /// <summary>Memory held while the transport was stalled, when the run stalled it.</summary>
    public BackpressureSample? Backpressure { get; init; }

    /// <summary>Whether publisher confirms were on (delivery tags must map to <see cref="PublishCall.PublishSequenceNumber"/>).</summary>
    public bool ConfirmsEnabled { get; init; }

    /// <summary>The wire offset of the writer's first output byte (8 when a protocol header preceded it, 0 at writer level);
    /// relates <see cref="PublishCall.BodyOwnerDisposedAtOutputBytes"/> to <see cref="FrameRecord.WireOffset"/>.</summary>
    public long OutputWireOffset { get; init; }

    /// <summary>Frames the writer sent (client to broker), in wire order.</summary>
    public IEnumerable<FrameRecord> Received => Frames.Where(f => f.Direction == FrameDirection.Received);
}
