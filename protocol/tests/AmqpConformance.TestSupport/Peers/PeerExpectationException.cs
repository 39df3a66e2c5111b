using AmqpConformance.Protocol;

namespace AmqpConformance.TestSupport.Peers;

/// <summary>
/// A <see cref="AmqpPeer"/> expectation failed: another method or frame came, or the stream ended first. Carries what
/// came instead, so a caller can tell "the broker closed with 403" from "the socket dropped".
/// </summary>
public sealed class PeerExpectationException : Exception
{
    /// <summary>Creates the exception.</summary>
    public PeerExpectationException(string message, ReceivedFrame? received = null)
        : base(message) => Received = received;

    /// <summary>What came instead of what was expected; null when the stream ended.</summary>
    public ReceivedFrame? Received { get; }

    /// <summary>The method that came instead, if a method frame came.</summary>
    public IAmqpMethod? Method => Received?.MethodOrNull;
}
