using System.IO.Pipelines;
using AmqpConformance.FakeBroker;
using AmqpConformance.Harness.Client;
using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol.Transport;

namespace AmqpConformance.Harness.Tests.Writers.Support;

/// <summary>A fake broker plus one harness client connected to it, in memory (Serve over a pipe pair) or over
/// TCP.</summary>
public sealed class BrokerSession : IAsyncDisposable
{
    public const string Memory = "memory";
    public const string Tcp = "tcp";

    private BrokerSession(
        FakeAmqpBroker broker,
        HarnessConnection client,
        BrokerConnection server,
        TrackingArrayPool pool
    )
    {
        Broker = broker;
        Client = client;
        Server = server;
        Pool = pool;
    }

    public FakeAmqpBroker Broker { get; }
    public HarnessConnection Client { get; }
    public BrokerConnection Server { get; }
    public TrackingArrayPool Pool { get; }

    /// <param name="transport"><see cref="Memory"/> or <see cref="Tcp"/>.</param>
    /// <param name="writer">The writer under test.</param>
    /// <param name="frameMax">The broker's frame_max offer, which the client accepts.</param>
    /// <param name="wrapOutput">In memory only: wraps the client's output (e.g. in a failing
    /// <see cref="TestPipeWriter"/>).</param>
    /// <param name="pool">The pool the client and its writer rent from; a fresh tracking pool when null.</param>
    /// <param name="captureBodies">Whether the broker's frame log keeps body payloads.</param>
    public static async Task<BrokerSession> StartAsync(
        string transport,
        FrameWriterFactory writer,
        int frameMax = 131072,
        Func<PipeWriter, PipeWriter>? wrapOutput = null,
        TrackingArrayPool? pool = null,
        bool captureBodies = false
    )
    {
        pool ??= new TrackingArrayPool();
        var brokerOptions = new FakeAmqpBrokerOptions
        {
            FrameMax = frameMax,
            FrameLog = new Protocol.Recording.FrameLogOptions { CaptureBodies = captureBodies },
        };
        var clientOptions = new HarnessClientOptions
        {
            WriterFactory = writer,
            Pool = pool,
            CloseTimeout = TimeSpan.FromSeconds(2),
        };
        using var timeout = new CancellationTokenSource(WriterTestKit.TestTimeout);
        if (transport == Memory)
        {
            var broker = FakeAmqpBroker.CreateWithoutListener(brokerOptions);
            var (client, server) = DuplexPipe.CreatePair();
            var serverConnection = broker.Serve(server);
            IDuplexPipe clientEnd = wrapOutput is null
                ? client
                : new DuplexPipe(client.Input, wrapOutput(client.Output));
            var connection = await HarnessConnection.ConnectAsync(clientEnd, clientOptions, timeout.Token);
            return new BrokerSession(broker, connection, serverConnection, pool);
        }
        if (wrapOutput is not null)
            throw new ArgumentException("Output wrapping needs the in-memory transport.", nameof(wrapOutput));
        var tcpBroker = await FakeAmqpBroker.StartAsync(brokerOptions, timeout.Token);
        var tcpClient = await HarnessConnection.ConnectAsync(tcpBroker.Endpoint, clientOptions, timeout.Token);
        var tcpServer = await tcpBroker.WaitForConnectionAsync(0, timeout.Token);
        return new BrokerSession(tcpBroker, tcpClient, tcpServer, pool);
    }

    /// <summary>Closes the client (close handshake) and waits until the broker's side has ended.</summary>
    public async Task CloseClientAsync()
    {
        await Client.DisposeAsync().AsTask().WaitAsync(WriterTestKit.TestTimeout);
        await Server.Completion.WaitAsync(WriterTestKit.TestTimeout);
    }

    public async ValueTask DisposeAsync()
    {
        await Client.DisposeAsync();
        await Broker.DisposeAsync();
    }
}
