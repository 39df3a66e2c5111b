using System.IO.Pipelines;
using AmqpConformance.Protocol.Transport;

namespace AmqpConformance.FakeBroker.Tests.Support;

/// <summary>A broker connection served over a pair of in-memory pipes (<see cref="FakeAmqpBroker.Serve"/>), with a
/// <see cref="AmqpTestClient"/> on the other end. <see cref="EndInput"/> ends the client's byte stream as a closed
/// socket would.</summary>
internal sealed class InMemoryClient : IAsyncDisposable
{
    private readonly Pipe _toBroker = new();
    private readonly Pipe _fromBroker;

    private InMemoryClient(FakeAmqpBroker broker, PipeOptions? fromBrokerOptions)
    {
        _fromBroker = new Pipe(fromBrokerOptions ?? PipeOptions.Default);
        Connection = broker.Serve(new DuplexPipe(_toBroker.Reader, _fromBroker.Writer));
        Client = AmqpTestClient.Over(_fromBroker.Reader, _toBroker.Writer);
    }

    /// <summary>Serves a new connection; <paramref name="fromBrokerOptions"/> shapes the broker-to-client pipe
    /// (a small pause threshold makes a client that stops reading stall the broker).</summary>
    public static InMemoryClient Serve(FakeAmqpBroker broker, PipeOptions? fromBrokerOptions = null) =>
        new(broker, fromBrokerOptions);

    public BrokerConnection Connection { get; }

    public AmqpTestClient Client { get; }

    /// <summary>Completes the client-to-broker pipe: the broker reads end of stream.</summary>
    public ValueTask EndInput() => _toBroker.Writer.CompleteAsync();

    public async ValueTask DisposeAsync()
    {
        await Client.DisposeAsync();
        await _fromBroker.Reader.CompleteAsync();
    }
}
