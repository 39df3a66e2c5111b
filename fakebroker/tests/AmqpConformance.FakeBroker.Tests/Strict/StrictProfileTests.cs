using System.Buffers;
using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Strict;

/// <summary>
/// What RabbitMQ lets through but a frame writer promising whole commands must not do: the strict profile reports
/// it (a finding that closed nothing, the connection carries on and the publish is confirmed); the RabbitMq profile
/// reports nothing.
/// </summary>
public sealed class StrictProfileTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(15);

    /// <summary>Runs <paramref name="send"/> on a confirm-mode channel 1 (channel 2 open too, queue "q" declared),
    /// waits for <paramref name="confirms"/> acks, closes cleanly, and returns the findings.</summary>
    private static async Task<IReadOnlyList<Protocol.Recording.ProtocolFinding>> RunAsync(
        Strictness strictness,
        int confirms,
        Func<AmqpTestClient, CancellationToken, Task> send,
        ushort extraChannel = 2,
        int frameMax = 4096
    )
    {
        await using var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions
            {
                HeartbeatSeconds = 0,
                FrameMax = frameMax,
                ChannelMax = 16,
                Strictness = strictness,
            }
        );
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        await client.HandshakeAsync(cancellationToken: cts.Token);
        var connection = broker.Connections[^1];
        foreach (ushort ch in new ushort[] { 1, extraChannel })
        {
            await client.OpenChannelAsync(ch, cts.Token);
            await client.SendMethodAsync(ch, new ConfirmSelect(), cts.Token);
            await client.ExpectAsync<ConfirmSelectOk>(cts.Token);
        }
        await client.SendMethodAsync(1, new QueueDeclare { Queue = "q" }, cts.Token);
        await client.ExpectAsync<QueueDeclareOk>(cts.Token);

        await send(client, cts.Token);
        ulong acked = 0;
        while (acked < (ulong)confirms)
        {
            var ack = await client.ExpectAsync<BasicAck>(cts.Token);
            acked += ack.Multiple ? ack.DeliveryTag - acked : 1; // only channel 1 confirms in these scenarios, except interleaving
        }
        await client.CloseAsync(cts.Token);
        await connection.Completion.WaitAsync(cts.Token);
        Assert.Equal(CloseInitiator.Client, connection.CloseInfo!.Initiator);
        return connection.Findings;
    }

    private static void AssertReported(
        Strictness strictness,
        IReadOnlyList<Protocol.Recording.ProtocolFinding> findings,
        string rule
    )
    {
        if (strictness == Strictness.RabbitMq)
        {
            Assert.Empty(findings);
            return;
        }
        var finding = Assert.Single(findings);
        Assert.Equal(rule, finding.Rule);
        Assert.False(finding.ClosedConnection);
        Assert.True(finding.Sequence >= 0);
    }

    [Theory]
    [InlineData(Strictness.Strict)]
    [InlineData(Strictness.RabbitMq)]
    public async Task Body_frame_of_frame_max_payload_is_accepted_but_reported(Strictness strictness)
    {
        // frame_max 4096: a 4096-byte payload makes a 4104-byte frame. RabbitMQ allows 8 bytes of slack.
        var findings = await RunAsync(strictness, 1, (c, ct) =>
            c.PublishAsync(
                1,
                "",
                "q",
                new byte[4096],
                frameMax: 4096
                    + 8 /* one 4096-byte body frame: 8 bytes over frame_max */
                ,
                cancellationToken: ct
            )
        );
        AssertReported(strictness, findings, "frame-exceeds-frame-max");
    }

    [Theory]
    [InlineData(Strictness.Strict)]
    [InlineData(Strictness.RabbitMq)]
    public async Task Non_final_body_frame_shorter_than_frame_max_minus_8_is_reported(Strictness strictness)
    {
        var findings = await RunAsync(strictness, 1, (c, ct) =>
            c.PublishAsync(
                1,
                "",
                "q",
                new byte[5000],
                frameMax: 1000
                    + 8 /* body frames of 1000 bytes, not full */
                ,
                cancellationToken: ct
            )
        );
        if (strictness == Strictness.RabbitMq)
        {
            Assert.Empty(findings);
            return;
        }
        Assert.Equal(4, findings.Count); // frames 1-4 of 1000 bytes are non-final; the 5th is the last
        Assert.All(findings, f => Assert.Equal(("body-frame-not-full", false), (f.Rule, f.ClosedConnection)));
    }

    [Theory]
    [InlineData(Strictness.Strict)]
    [InlineData(Strictness.RabbitMq)]
    public async Task Non_final_body_frame_at_frame_max_0_is_reported(Strictness strictness)
    {
        // frame_max 0 is unlimited: a body goes out as one frame (the harness's command-shape rule says the same; a
        // writer that reads 0 as 131072 cuts bodies it need not cut).
        var findings = await RunAsync(
            strictness,
            1,
            (c, ct) => c.PublishAsync(1, "", "q", new byte[5000], frameMax: 1000 + 8, cancellationToken: ct),
            frameMax: 0
        );
        if (strictness == Strictness.RabbitMq)
        {
            Assert.Empty(findings);
            return;
        }
        Assert.Equal(4, findings.Count);
        Assert.All(findings, f => Assert.Equal(("body-frame-not-full", false), (f.Rule, f.ClosedConnection)));
        Assert.Contains("frame_max is 0", findings[0].Message);
    }

    [Theory]
    [InlineData(Strictness.Strict)]
    [InlineData(Strictness.RabbitMq)]
    public async Task Content_of_two_channels_interleaved_is_reported(Strictness strictness)
    {
        var findings = await RunAsync(strictness, 2, async (c, ct) =>
        {
            var bytes = new System.Buffers.ArrayBufferWriter<byte>();
            bytes.Write(FrameBytes.Method(1, new BasicPublish { RoutingKey = "q" }));
            bytes.Write(FrameBytes.Header(1, 3));
            bytes.Write(FrameBytes.Method(2, new BasicPublish { RoutingKey = "q" }));
            bytes.Write(FrameBytes.Header(2, 3));
            bytes.Write(FrameBytes.Body(1, "abc"u8));
            bytes.Write(FrameBytes.Body(2, "def"u8));
            await c.SendBytesAsync(bytes.WrittenMemory, ct);
        });
        if (strictness == Strictness.RabbitMq)
        {
            Assert.Empty(findings);
            return;
        }
        // Channel 1's publish was interrupted by channel 2's method; channel 2's by channel 1's body.
        Assert.Equal(2, findings.Count);
        Assert.All(findings, f => Assert.Equal(("content-interleaved", false), (f.Rule, f.ClosedConnection)));
    }

    [Theory]
    [InlineData(Strictness.Strict)]
    [InlineData(Strictness.RabbitMq)]
    public async Task Channel_number_above_channel_max_is_reported(Strictness strictness)
    {
        var findings = await RunAsync(
            strictness,
            1,
            (c, ct) => c.PublishAsync(1, "", "q", "x"u8, 4096, cancellationToken: ct),
            extraChannel: 100
        );
        AssertReported(strictness, findings, "channel-number-above-channel-max");
    }

    [Fact]
    public async Task Whole_commands_at_frame_max_produce_no_findings()
    {
        var findings = await RunAsync(Strictness.Strict, 3, async (c, ct) =>
        {
            await c.PublishAsync(1, "", "q", new byte[4088 * 3 + 17], 4096, cancellationToken: ct);
            await c.PublishAsync(1, "", "q", new byte[4088], 4096, cancellationToken: ct);
            await c.PublishAsync(1, "", "q", ReadOnlySpan<byte>.Empty, 4096, cancellationToken: ct);
        });
        Assert.Empty(findings);
    }
}
