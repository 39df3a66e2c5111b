namespace AmqpConformance.FakeBroker.Tests.Parity;

/// <summary>The kinds of answer a server gives to a bad input.</summary>
internal enum ParityAnswerKind
{
    /// <summary>connection.close with a reply code.</summary>
    ConnectionClose,

    /// <summary>channel.close with a reply code; the connection stays up.</summary>
    ChannelClose,

    /// <summary>The server sent its protocol header (AMQP 0-9-1) and closed: it refused the client's header.</summary>
    ProtocolHeaderThenClose,

    /// <summary>The server closed the socket without a close method.</summary>
    SocketClosed,

    /// <summary>Nothing within the wait: the server carried on as if nothing happened.</summary>
    NoAnswer,
}
