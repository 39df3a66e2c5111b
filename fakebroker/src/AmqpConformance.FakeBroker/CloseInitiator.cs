namespace AmqpConformance.FakeBroker;

/// <summary>Who ended a connection.</summary>
public enum CloseInitiator
{
    /// <summary>The client sent connection.close; the broker answered close-ok.</summary>
    Client,

    /// <summary>The broker closed it: with connection.close (reply code set) or, where RabbitMQ does the same, by
    /// closing the socket without one (reply code 0: bad protocol header, missed heartbeats, unknown method).</summary>
    Broker,

    /// <summary>The byte stream from the client ended (or failed) without a connection.close.</summary>
    Transport,
}
