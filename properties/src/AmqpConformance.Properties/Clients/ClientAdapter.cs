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

    /// <summary>The version of the client under test as it reports it (say, its assembly's informational version);
    /// null when unknown. Known deviations are scoped by it (<see cref="KnownDeviation.ClientScope"/>), so a defect
    /// accepted for one release is still reported in another.</summary>
    public virtual string? Version => null;

    /// <summary>Settings of the client that change how it writes frames, by name (say "UseBackgroundFrameWriter" ->
    /// "false"); empty when it has none to report. Known deviations are scoped by them
    /// (<see cref="KnownDeviation.ClientScope"/>).</summary>
    public virtual IReadOnlyDictionary<string, string> Settings { get; } = new Dictionary<string, string>();

    /// <summary>Connects (handshake done) as <paramref name="options"/> say; throws if the client cannot
    /// connect.</summary>
    public abstract Task<IClientSession> ConnectAsync(
        ClientConnectOptions options,
        CancellationToken cancellationToken
    );

    /// <inheritdoc />
    public override string ToString() => Name;
}
