using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.FakeBroker.Tests.Strict;

/// <summary>frame_max 0 (unlimited) negotiated: frames far above 131072 bytes are accepted without a finding, and the
/// broker sends a body back in one frame.</summary>
public sealed class UnlimitedFrameMaxTests
{
    [Fact]
    public async Task A_one_mebibyte_body_frame_round_trips_in_one_frame()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(15));
        await using var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, FrameMax = 0 }
        );
        await using var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        await client.HandshakeAsync(new TestPeerHandshake { FrameMax = 0 }, cancellationToken: cts.Token);
        Assert.Equal(0u, client.Tune!.FrameMax);
        await client.OpenChannelAsync(1, cts.Token);
        await client.SendMethodAsync(1, new QueueDeclare { Queue = "big" }, cts.Token);
        await client.ExpectAsync<QueueDeclareOk>(cts.Token);
        byte[] body = [.. Enumerable.Range(0, 1 << 20).Select(i => (byte)(i * 7))];
        await client.PublishAsync(
            1,
            "",
            "big",
            body,
            frameMax: 0 /* one body frame */
            ,
            cancellationToken: cts.Token
        );
        await client.SendMethodAsync(1, new BasicGet { Queue = "big", NoAck = true }, cts.Token);
        await client.ExpectAsync<BasicGetOk>(cts.Token);
        Assert.Equal(FrameType.Header, (await client.ReadFrameAsync(cts.Token))!.Type);
        var bodyFrame = await client.ReadFrameAsync(cts.Token);
        Assert.Equal(body, bodyFrame!.Payload);
        await client.CloseAsync(cts.Token);

        var connection = broker.Connections.Single();
        await connection.Completion.WaitAsync(cts.Token);
        Assert.Equal(0, connection.FrameMax);
        Assert.Empty(connection.Findings); // strict profile: nothing to report at frame_max 0
        Assert.Single(connection.Log.Snapshot(), f =>
            f.Direction == FrameDirection.Received && f.Type == FrameType.Body && f.Size == 1 << 20
        );
    }
}
