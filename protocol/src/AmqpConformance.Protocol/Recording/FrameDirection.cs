namespace AmqpConformance.Protocol.Recording;

/// <summary>Which way a recorded frame travelled, seen from the broker.</summary>
public enum FrameDirection
{
    /// <summary>Client to broker: what the writer under test produced.</summary>
    Received,

    /// <summary>Broker to client.</summary>
    Sent,
}
