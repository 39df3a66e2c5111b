using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.FakeBroker.Tests.Robustness;

/// <summary>When the broker itself fails on a connection (here: a test's frame-log subscriber throws), that connection
/// ends with connection.close 541 or a closed socket and an "internal-error" finding; nothing reaches the test host,
/// and other connections are served as before.</summary>
public sealed class InternalFailureTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(15);

    /// <summary>A broker whose connections' logs have a subscriber that throws on the first
    /// <paramref name="methodName"/> frame going <paramref name="direction"/>: a stand-in for any failure inside the
    /// broker's loops.</summary>
    private static async Task<FakeAmqpBroker> StartWithFailingSubscriberAsync(
        FrameDirection direction,
        string methodName
    )
    {
        var broker = await FakeAmqpBroker.StartAsync(new FakeAmqpBrokerOptions { HeartbeatSeconds = 0 });
        broker.ConnectionAccepted += c =>
            c.Log.Subscribe(f =>
            {
                if (f.Direction == direction && f.MethodName == methodName)
                    throw new InvalidCastException("subscriber bug");
            });
        return broker;
    }

    [Fact]
    public async Task Failure_while_reading_ends_the_connection_with_541()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var broker = await StartWithFailingSubscriberAsync(FrameDirection.Received, "basic.qos");
        await using var client = await AmqpTestClient.ConnectOpenAsync(broker.Endpoint, cts.Token);
        await client.SendMethodAsync(1, new BasicQos { PrefetchCount = 1 }, cts.Token);

        var close = await client.ExpectConnectionCloseAsync(cts.Token);
        Assert.Equal(541, close.ReplyCode);
        Assert.Contains("subscriber bug", close.ReplyText);
        var connection = broker.Connections[0];
        await connection.Completion.WaitAsync(cts.Token);
        Assert.Single(connection.Findings, f => f.Rule == "internal-error" && f.ClosedConnection);
        Assert.Equal(
            (CloseInitiator.Broker, (ushort)541),
            (connection.CloseInfo!.Initiator, connection.CloseInfo.ReplyCode)
        );
        await BrokerProbe.AssertServesAsync(broker, cts.Token); // its subscriber never sees a basic.qos
    }

    [Fact]
    public async Task Failure_while_writing_closes_the_socket()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var broker = await StartWithFailingSubscriberAsync(FrameDirection.Sent, "basic.qos-ok");
        await using var client = await AmqpTestClient.ConnectOpenAsync(broker.Endpoint, cts.Token);
        await client.SendMethodAsync(1, new BasicQos { PrefetchCount = 1 }, cts.Token);

        await client.ReadUntilClosedAsync(cts.Token); // ends: the socket closed
        var connection = broker.Connections[0];
        await connection.Completion.WaitAsync(cts.Token);
        Assert.Single(connection.Findings, f => f.Rule == "internal-error" && f.ClosedConnection);
        Assert.Equal(CloseInitiator.Broker, connection.CloseInfo!.Initiator);
        await BrokerProbe.AssertServesAsync(broker, cts.Token);
    }
}
