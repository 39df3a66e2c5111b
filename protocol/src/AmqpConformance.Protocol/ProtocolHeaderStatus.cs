namespace AmqpConformance.Protocol;

/// <summary>What <see cref="ProtocolHeaderCheck"/> found in the first bytes of a connection.</summary>
public enum ProtocolHeaderStatus
{
    /// <summary>Fewer than 8 bytes so far, all consistent with an AMQP header; read more.</summary>
    NeedMoreData,

    /// <summary>Exactly "AMQP" 0 0 9 1.</summary>
    Amqp091,

    /// <summary>"AMQP" followed by other version octets (e.g. AMQP 1.0's "AMQP" 0 1 0 0 or 0-8's "AMQP" 1 1 8 0).
    /// RabbitMQ answers with its own header and closes.</summary>
    OtherAmqpVersion,

    /// <summary>The bytes do not start with "AMQP" (e.g. HTTP, TLS, or a client skipping the header).</summary>
    NotAmqp,
}
