using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.FakeBroker.Tests.Recording;

/// <summary>A stream that ends inside a frame (the peer closes or resets after half a frame) leaves a "truncated-frame"
/// finding saying how much of which frame arrived, and never a frame record for the partial frame.</summary>
public sealed class TruncatedFrameTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(15);

    [Fact]
    public async Task Stream_closed_half_way_through_a_body_frame_is_reported_with_the_bytes_that_came()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var broker = FakeAmqpBroker.CreateWithoutListener(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, FrameMax = 4096 }
        );
        await using var served = InMemoryClient.Serve(broker);
        var (connection, client) = (served.Connection, served.Client);
        await client.HandshakeAsync(new TestPeerHandshake { FrameMax = 4096 }, cancellationToken: cts.Token);
        await client.OpenChannelAsync(1, cts.Token);
        var draining = Task.Run(() => client.ReadUntilClosedAsync(cts.Token), cts.Token);

        await client.SendBytesAsync(FrameBytes.Method(1, new BasicPublish { RoutingKey = "q" }), cts.Token);
        await client.SendBytesAsync(FrameBytes.Header(1, 1000), cts.Token);
        byte[] body = FrameBytes.Body(1, Enumerable.Range(0, 1000).Select(i => (byte)i).ToArray());
        await client.SendBytesAsync(body.AsMemory(0, 7 + 500), cts.Token); // header + half the payload
        await served.EndInput();

        await connection.Completion.WaitAsync(cts.Token);
        await draining;
        long wholeFramesEnd = connection
            .Log.Snapshot()
            .Where(f => f.Direction == FrameDirection.Received)
            .Max(f => f.WireOffset + f.WireLength);
        var truncated = Assert.Single(connection.Findings, f => f.Rule == "truncated-frame");
        Assert.False(truncated.ClosedConnection);
        Assert.Contains("507 byte(s)", truncated.Message);
        Assert.Contains("body frame on channel 1 claimed a 1000-byte payload", truncated.Message);
        Assert.Contains("1008 bytes in all; 507 arrived, 501 missing", truncated.Message);
        Assert.Contains($"wire offset {wholeFramesEnd}", truncated.Message);
        Assert.Contains("first 16 of 507 octets = 03 00 01 00 00 03 e8 00 01 02", truncated.Message);
        Assert.DoesNotContain(connection.Log.Snapshot(), f => f.Type == FrameType.Body);
        Assert.Empty(connection.Published);
        Assert.Equal(CloseInitiator.Transport, connection.CloseInfo!.Initiator);
    }

    [Fact]
    public async Task Fewer_than_seven_bytes_of_a_frame_are_reported_too()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var broker = FakeAmqpBroker.CreateWithoutListener(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0 }
        );
        await using var served = InMemoryClient.Serve(broker);
        var (connection, client) = (served.Connection, served.Client);
        await client.HandshakeAsync(cancellationToken: cts.Token);
        await client.SendBytesAsync(new byte[] { 1, 0, 1 }, cts.Token);
        await served.EndInput();
        await connection.Completion.WaitAsync(cts.Token);
        var truncated = Assert.Single(connection.Findings, f => f.Rule == "truncated-frame");
        Assert.Contains("3 byte(s)", truncated.Message);
        Assert.Contains("all 3 octets = 01 00 01", truncated.Message);
    }

    [Fact]
    public async Task Peer_reset_after_half_a_body_frame_over_TCP_is_reported_and_other_connections_carry_on()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var broker = await FakeAmqpBroker.StartAsync(new FakeAmqpBrokerOptions { HeartbeatSeconds = 0 });
        await using var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        await client.HandshakeAsync(cancellationToken: cts.Token);
        await client.OpenChannelAsync(1, cts.Token);
        var connection = broker.Connections[^1];

        byte[] publish = FrameBytes.Publish(1, "", "q", new byte[10_000], 131072);
        int cut = publish.Length - 5_000; // inside the body frame
        await client.SendBytesAsync(publish.AsMemory(0, cut), cts.Token);
        // Wait until the broker has read everything sent: the method and header frames, and the partial body it holds.
        while (connection.PartialFrameBytes < 5_008)
            await Task.Delay(1, cts.Token);
        Assert.Contains(connection.Log.Snapshot(), f => f.Type == FrameType.Header);
        client.Reset(); // close with RST

        await connection.Completion.WaitAsync(cts.Token);
        var truncated = Assert.Single(connection.Findings, f => f.Rule == "truncated-frame");
        Assert.Contains("body frame on channel 1 claimed a 10000-byte payload", truncated.Message);
        Assert.Contains("5008 arrived, 5000 missing", truncated.Message);
        Assert.Equal(CloseInitiator.Transport, connection.CloseInfo!.Initiator);
        Assert.Empty(connection.Published);
        await BrokerProbe.AssertServesAsync(broker, cts.Token);
    }
}
