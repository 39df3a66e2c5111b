using System.Net;
using AmqpConformance.FakeBroker;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using RabbitMQ.Client;

namespace AmqpConformance.Toxiproxy.Tests;

/// <summary>
/// The setup every toxic test shares: RabbitMQ.Client 7 -> proxy (embedded or real Toxiproxy) -> byte tap ->
/// fake broker, with one channel in publisher-confirm mode and a queue to publish to.
/// </summary>
internal sealed class AmqpThroughProxy : IAsyncDisposable
{
    public const string Queue = "faults";

    private AmqpThroughProxy(ToxiproxyTarget target, FakeAmqpBroker broker, ByteTap tap, ProxyConfig proxy)
    {
        Target = target;
        Broker = broker;
        Tap = tap;
        Proxy = proxy;
    }

    public ToxiproxyTarget Target { get; }
    public FakeAmqpBroker Broker { get; }
    public ByteTap Tap { get; }
    public ProxyConfig Proxy { get; }
    public IConnection Connection { get; private set; } = null!;
    public IChannel Channel { get; private set; } = null!;
    public BrokerConnection BrokerConnection { get; private set; } = null!;
    public ByteTap.TapConnection TapConnection { get; private set; } = null!;

    public static async Task<AmqpThroughProxy> StartAsync(CancellationToken ct)
    {
        var target = await ToxiproxyTarget.StartAsync();
        var broker = await FakeAmqpBroker.StartAsync(new FakeAmqpBrokerOptions { HeartbeatSeconds = 0 }, ct);
        var tap = new ByteTap(new IPEndPoint(IPAddress.Loopback, broker.Port));
        ProxyConfig proxy = await target.CreateProxyAsync(tap.Port, ct);
        var setup = new AmqpThroughProxy(target, broker, tap, proxy);
        var factory = new ConnectionFactory
        {
            HostName = ToxiproxyTarget.ListenHost,
            Port = proxy.ListenPort,
            AutomaticRecoveryEnabled = false,
            TopologyRecoveryEnabled = false,
            RequestedHeartbeat = TimeSpan.Zero,
            RequestedConnectionTimeout = TimeSpan.FromSeconds(10),
            ContinuationTimeout = TimeSpan.FromSeconds(30),
        };
        setup.Connection = await factory.CreateConnectionAsync(ct);
        setup.Channel = await setup.Connection.CreateChannelAsync(
            new CreateChannelOptions(publisherConfirmationsEnabled: true, publisherConfirmationTrackingEnabled: true),
            ct
        );
        await setup.Channel.QueueDeclareAsync(
            Queue,
            durable: false,
            exclusive: false,
            autoDelete: false,
            cancellationToken: ct
        );
        setup.BrokerConnection = await broker.WaitForConnectionAsync(0, ct);
        setup.TapConnection = await tap.WaitForConnectionAsync(0, ct);
        return setup;
    }

    /// <summary>Publishes and waits for the broker's confirm.</summary>
    public async Task PublishAsync(byte[] body, CancellationToken ct) =>
        await Channel.BasicPublishAsync("", Queue, mandatory: false, new RabbitMQ.Client.BasicProperties(), body, ct);

    public Task<ToxicConfig> AddToxicAsync(
        string type,
        string stream,
        Dictionary<string, long> attributes,
        CancellationToken ct
    ) => Target.Client.AddToxicAsync(Proxy.Name, type, stream, attributes, cancellationToken: ct);

    /// <summary>Bytes the broker's log accounts for in whole frames (protocol header included).</summary>
    public long WholeFrameBytes()
    {
        FrameRecord? last = BrokerConnection.Log.Snapshot().LastOrDefault(f => f.Direction == FrameDirection.Received);
        return last is null ? AmqpConstants.ProtocolHeader.Length : last.WireOffset + last.WireLength;
    }

    public async Task WaitUntilClosedAsync(CancellationToken ct)
    {
        while (Connection.IsOpen)
            await Task.Delay(10, ct);
    }

    public async ValueTask DisposeAsync()
    {
        try
        {
            await Connection.AbortAsync(TimeSpan.FromSeconds(2));
        }
        catch (Exception) { } // a connection the test broke already: disposed below either way
        Connection.Dispose();
        await Target.DisposeAsync();
        await Tap.DisposeAsync();
        await Broker.DisposeAsync();
    }
}
