using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Properties.Running;

/// <summary>Where the evidence of one case is read from when the case has ended (<see cref="EvidenceBuilder"/>): the
/// broker's frame log of the case's connection, where the output under test starts in it, the connection's frame_max,
/// and how the case's transport fault is told.</summary>
/// <param name="Log">The broker's record of the case's connection.</param>
/// <param name="OutputWireOffset">The wire offset of the first byte of the output under test: what the harness wrote
/// before it (the protocol header, and at writer level the handshake) is not evidence.</param>
/// <param name="FrameMax">The frame_max the connection negotiated (0 = unlimited).</param>
/// <param name="FaultOf">Tells the case's transport fault, given the broker's findings (read once, for the fault and
/// the evidence alike); null when the connection stayed healthy. See <see cref="EvidenceBuilder.BrokerClosed"/> for the
/// fault both levels share.</param>
internal sealed record EvidenceSources(
    FrameLog Log,
    long OutputWireOffset,
    int FrameMax,
    Func<IReadOnlyList<ProtocolFinding>, TransportFaultRecord?> FaultOf
)
{
    /// <summary>Whether publisher confirms were on (client level; the writer-level connection has none).</summary>
    public bool ConfirmsEnabled { get; init; }

    /// <summary>What the harness observed of a writer whose pools and output it owns; null at client level.</summary>
    public WriterObservations? Writer { get; init; }
}
