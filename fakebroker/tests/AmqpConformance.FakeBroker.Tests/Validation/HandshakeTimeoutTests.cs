using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Validation;

/// <summary>A client that stalls in the handshake loses the socket after
/// <see cref="FakeAmqpBrokerOptions.HandshakeTimeout"/> (RabbitMQ 3.10 resets after its 10 s handshake_timeout, checked
/// against it); one that completes it keeps it.</summary>
public sealed class HandshakeTimeoutTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(15);

    [Theory]
    [InlineData(false)] // nothing at all
    [InlineData(true)] // the protocol header, then nothing
    public async Task Stalled_handshake_is_closed_without_connection_close(bool sendHeader)
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, HandshakeTimeout = TimeSpan.FromMilliseconds(300) }
        );
        await using var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        if (sendHeader)
            await client.SendProtocolHeaderAsync(cts.Token);
        var methods = await client.ReadUntilClosedAsync(cts.Token);
        Assert.DoesNotContain(methods, m => m is ConnectionClose);
        var connection = broker.Connections.Single();
        await connection.Completion.WaitAsync(cts.Token);
        Assert.Single(connection.Findings, f => f.Rule == "handshake-timeout" && f.ClosedConnection);
        Assert.Equal(
            (CloseInitiator.Broker, (ushort)0),
            (connection.CloseInfo!.Initiator, connection.CloseInfo.ReplyCode)
        );
        Assert.False(await connection.Opened);
        await BrokerProbe.AssertServesAsync(broker, cts.Token);
    }

    [Fact]
    public async Task Completed_handshake_outlives_the_timeout()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, HandshakeTimeout = TimeSpan.FromMilliseconds(300) }
        );
        await using var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        await client.HandshakeAsync(cancellationToken: cts.Token);
        await Task.Delay(600, cts.Token);
        await client.OpenChannelAsync(1, cts.Token);
        await client.CloseAsync(cts.Token);
        Assert.Empty(broker.Connections.Single().Findings);
    }

    [Fact]
    public void Zero_or_negative_timeouts_are_refused()
    {
        Assert.Throws<ArgumentException>(() =>
            new FakeAmqpBrokerOptions { HandshakeTimeout = TimeSpan.Zero }.Validate()
        );
        new FakeAmqpBrokerOptions { HandshakeTimeout = System.Threading.Timeout.InfiniteTimeSpan }.Validate();
    }
}
