using System.Net;
using AmqpConformance.FakeBroker.Tests.Support;

namespace AmqpConformance.FakeBroker.Tests.Api;

public sealed class FakeAmqpBrokerApiTests
{
    [Fact]
    public async Task Listens_on_a_free_loopback_port_and_gives_a_guest_uri()
    {
        await using var broker = await FakeAmqpBroker.StartAsync();
        Assert.Equal(IPAddress.Loopback, broker.Endpoint.Address);
        Assert.NotEqual(0, broker.Port);
        Assert.Equal($"amqp://guest:guest@127.0.0.1:{broker.Port}/", broker.AmqpUri);
    }

    [Fact]
    public async Task WaitForConnectionAsync_and_ConnectionAccepted_see_connections_in_arrival_order()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        await using var broker = await FakeAmqpBroker.StartAsync(new FakeAmqpBrokerOptions { HeartbeatSeconds = 0 });
        var accepted = new List<long>();
        broker.ConnectionAccepted += c =>
        {
            lock (accepted)
                accepted.Add(c.Id);
        };
        var second = broker.WaitForConnectionAsync(1, cts.Token);
        Assert.False(second.IsCompleted);
        await using var a = await AmqpTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        await a.HandshakeAsync(cancellationToken: cts.Token);
        await using var b = await AmqpTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        await b.HandshakeAsync(cancellationToken: cts.Token);
        var connection = await second;
        Assert.Equal(2, connection.Id);
        Assert.True(await connection.Opened);
        Assert.Equal("/", connection.VirtualHostName);
        Assert.Equal("guest", connection.UserName);
        Assert.Equal(TestPeerHandshake.Default.Product, connection.ClientProperties!["product"].AsString());
        lock (accepted)
            Assert.Equal([1L, 2L], accepted);
        await a.CloseAsync(cts.Token);
        var first = await broker.WaitForConnectionAsync(0, cts.Token);
        await first.Completion.WaitAsync(cts.Token);
        Assert.Equal(new ConnectionCloseInfo(CloseInitiator.Client, 200, "bye", 0, 0), first.CloseInfo);
        Assert.Null(connection.CloseInfo);
    }

    [Fact]
    public async Task Client_dropping_the_socket_ends_the_connection_as_a_transport_close()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        await using var broker = await FakeAmqpBroker.StartAsync(new FakeAmqpBrokerOptions { HeartbeatSeconds = 0 });
        var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        await client.HandshakeAsync(cancellationToken: cts.Token);
        var connection = broker.Connections.Single();
        await client.DisposeAsync();
        await connection.Completion.WaitAsync(cts.Token);
        Assert.Equal(CloseInitiator.Transport, connection.CloseInfo!.Initiator);
        Assert.Empty(connection.Findings);
    }

    [Theory]
    [InlineData(100)]
    [InlineData(-1)]
    public void Invalid_frame_max_is_refused_with_a_clear_error(int frameMax)
    {
        var error = Assert.Throws<ArgumentException>(() =>
            FakeAmqpBroker.CreateWithoutListener(new FakeAmqpBrokerOptions { FrameMax = frameMax })
        );
        Assert.Contains("FrameMax", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Port_in_use_fails_to_start()
    {
        await using var first = await FakeAmqpBroker.StartAsync();
        await Assert.ThrowsAsync<System.Net.Sockets.SocketException>(() =>
            FakeAmqpBroker.StartAsync(new FakeAmqpBrokerOptions { Port = first.Port })
        );
    }
}
