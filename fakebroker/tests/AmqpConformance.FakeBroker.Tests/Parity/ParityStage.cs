namespace AmqpConformance.FakeBroker.Tests.Parity;

/// <summary>How far the handshake goes before a case's bytes are sent.</summary>
internal enum ParityStage
{
    /// <summary>The bytes replace the protocol header.</summary>
    ProtocolHeader,

    /// <summary>The case's password goes in connection.start-ok; no other bytes.</summary>
    Login,

    /// <summary>Handshake done, channel 1 open; then the bytes.</summary>
    ChannelOpen,
}
