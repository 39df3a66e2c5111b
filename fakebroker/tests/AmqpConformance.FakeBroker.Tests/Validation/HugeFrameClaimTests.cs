using AmqpConformance.FakeBroker.Tests.Support;

namespace AmqpConformance.FakeBroker.Tests.Validation;

/// <summary>Runs alone (no other test allocating at the same time), so the process-wide allocation count means
/// something.</summary>
[CollectionDefinition(nameof(HugeFrameClaimTests), DisableParallelization = true)]
public sealed class HugeFrameClaimCollection;

/// <summary>A frame header claiming ~2 GB is refused from the header alone: 501, nothing of that size allocated,
/// before and after tune-ok.</summary>
[Collection(nameof(HugeFrameClaimTests))]
public sealed class HugeFrameClaimTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(15);

    [Fact]
    public async Task Two_gigabyte_frame_claim_after_open_is_501_and_allocates_nothing_of_that_size()
    {
        await using var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, FrameMax = 0 }
        );
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        await client.HandshakeAsync(cancellationToken: cts.Token);
        await client.OpenChannelAsync(1, cts.Token);
        var connection = broker.Connections[^1];
        Assert.Equal(0, connection.FrameMax); // unlimited: the hard cap (128 MiB) still applies

        long before = GC.GetTotalAllocatedBytes(precise: true);
        await client.SendBytesAsync(
            MalformedFrames.OversizeClaim(Protocol.FrameType.Body, 1, 0x7FFFFFF0, [1, 2, 3]),
            cts.Token
        );
        var close = await client.ExpectConnectionCloseAsync(cts.Token);
        await connection.Completion.WaitAsync(cts.Token);
        long allocated = GC.GetTotalAllocatedBytes(precise: true) - before;

        Assert.Equal((501, 0, 0), (close.ReplyCode, close.FailingClassId, close.FailingMethodId));
        Assert.True(
            allocated < 64L * 1024 * 1024,
            $"the process allocated {allocated} bytes while refusing a 2 GB frame claim"
        );
        var claimed = connection.Log.Snapshot().Single(f => f.Size == 0x7FFFFFF0);
        Assert.Null(claimed.Payload);
        var finding = Assert.Single(connection.Findings, f => f.Rule == "frame-too-large");
        Assert.True(finding.ClosedConnection);
        await BrokerProbe.AssertServesAsync(broker, cts.Token);
    }

    [Fact]
    public async Task Two_gigabyte_frame_claim_before_tune_drops_the_socket_like_RabbitMQ_3()
    {
        await using var broker = await FakeAmqpBroker.StartAsync(new FakeAmqpBrokerOptions { HeartbeatSeconds = 0 });
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        await client.SendProtocolHeaderAsync(cts.Token);
        await client.ExpectAsync<Protocol.ConnectionStart>(cts.Token);
        await client.SendBytesAsync(MalformedFrames.OversizeClaim(Protocol.FrameType.Method, 0, 0x7FFFFFF0), cts.Token);
        var rest = await client.ReadUntilClosedAsync(cts.Token);
        Assert.Empty(rest); // no connection.close before tune-ok: RabbitMQ 3.10 just closes the socket
        var connection = broker.Connections[^1];
        await connection.Completion.WaitAsync(cts.Token);
        Assert.Equal(CloseInitiator.Broker, connection.CloseInfo!.Initiator);
        Assert.Single(connection.Findings, f => f.Rule == "frame-too-large" && f.ClosedConnection);
        await BrokerProbe.AssertServesAsync(broker, cts.Token);
    }
}
