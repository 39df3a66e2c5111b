namespace AmqpConformance.TestSupport.Peers;

/// <summary>The client's steps of the AMQP 0-9-1 handshake, in order; <see cref="AmqpTestClient.HandshakeAsync"/> stops
/// after the one it is given.</summary>
public enum HandshakeStep
{
    /// <summary>The 8-byte protocol header is sent; nothing is read.</summary>
    ProtocolHeader,

    /// <summary>connection.start is read and connection.start-ok sent (credentials, capabilities).</summary>
    StartOk,

    /// <summary>connection.tune is read and connection.tune-ok sent.</summary>
    TuneOk,

    /// <summary>connection.open is sent and connection.open-ok read: the connection is open.</summary>
    Open,
}
