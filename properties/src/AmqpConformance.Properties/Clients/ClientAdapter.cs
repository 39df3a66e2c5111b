namespace AmqpConformance.Properties.Clients;

/// <summary>
/// Puts a whole AMQP client under test at client level: the suites connect it over loopback TCP, through the embedded
/// fault proxy, to the fake broker, publish through it, and judge the frames the broker received. Subclass it for your
/// client (see the RabbitMQ.Client adapter in the suites' tests) and hand it to a <c>ClientConformanceSuite</c>.
/// </summary>
public abstract class ClientAdapter
{
    /// <summary>The client's name in reports.</summary>
    public abstract string Name { get; }

    /// <summary>Connects (handshake done) as <paramref name="options"/> say; throws if the client cannot
    /// connect.</summary>
    public abstract Task<IClientSession> ConnectAsync(
        ClientConnectOptions options,
        CancellationToken cancellationToken
    );

    /// <inheritdoc />
    public override string ToString() => Name;
}
