using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Validation;

/// <summary>
/// Each RabbitMQ-compatible rule, broken over a raw TCP socket: the broker answers with connection.close carrying
/// RabbitMQ 3.x's reply code and failing class/method ids (checked against a real RabbitMQ 3.10.8), records a
/// finding that closed the connection, and keeps serving new connections afterwards.
/// </summary>
public sealed class ConnectionErrorTests : IAsyncLifetime
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(15);
    private FakeAmqpBroker _broker = null!;

    public async Task InitializeAsync() =>
        _broker = await FakeAmqpBroker.StartAsync(new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, FrameMax = 4096 });

    public async Task DisposeAsync() => await _broker.DisposeAsync();

    private static readonly byte[] ChannelCloseMethod = FrameBytes.Method(
        1,
        new ChannelClose { ReplyCode = 200, ReplyText = "bye" }
    );

    /// <summary>Handshake, channel 1 open, then the violation; returns the broker's connection.close and the
    /// connection.</summary>
    private async Task<(ConnectionClose Close, BrokerConnection Connection)> ViolateAsync(
        Func<AmqpTestClient, CancellationToken, Task> violate
    )
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectAsync(_broker.Endpoint, cts.Token);
        await client.HandshakeAsync(cancellationToken: cts.Token);
        await client.OpenChannelAsync(1, cts.Token);
        var connection = _broker.Connections[^1];
        await violate(client, cts.Token);
        var close = await client.ExpectConnectionCloseAsync(cts.Token);
        await connection.Completion.WaitAsync(cts.Token);
        return (close, connection);
    }

    private async Task AssertClosedAndStillServingAsync(
        (ConnectionClose Close, BrokerConnection Connection) result,
        ushort code,
        ushort classId,
        ushort methodId,
        string rule
    )
    {
        var (close, connection) = result;
        Assert.Equal(code, close.ReplyCode);
        Assert.StartsWith(ReplyCodes.NameOf(code) + " - ", close.ReplyText, StringComparison.Ordinal);
        Assert.Equal(classId, close.FailingClassId);
        Assert.Equal(methodId, close.FailingMethodId);
        var finding = Assert.Single(connection.Findings, f => f.Rule == rule);
        Assert.Equal(code, finding.ReplyCode);
        Assert.True(finding.ClosedConnection);
        Assert.True(finding.Sequence >= 0, "the finding points at the offending frame");
        Assert.Equal(
            new ConnectionCloseInfo(CloseInitiator.Broker, code, close.ReplyText, classId, methodId),
            connection.CloseInfo
        );
        using var cts = new CancellationTokenSource(Timeout);
        await BrokerProbe.AssertServesAsync(_broker, cts.Token);
    }

    [Fact]
    public async Task Bad_frame_end_octet_is_501()
    {
        var result = await ViolateAsync(
            (c, ct) =>
                c.SendBytesAsync(
                    MalformedFrames.WithFrameEnd(FrameBytes.Method(1, new BasicQos { PrefetchCount = 1 }), 0x00),
                    ct
                )
        );
        await AssertClosedAndStillServingAsync(result, 501, 0, 0, "bad-frame-end");
        var offending = result.Connection.Log.Snapshot().Single(f => !f.FrameEndValid);
        Assert.Equal(FrameTypeOf(1), offending.Type);
    }

    [Fact]
    public async Task Payload_over_frame_max_is_501_decided_from_the_header()
    {
        // frame_max 4096: RabbitMQ accepts payloads up to 4096 (8 bytes of slack), refuses 4097.
        var result = await ViolateAsync(
            async (c, ct) =>
            {
                await c.SendBytesAsync(FrameBytes.Method(1, new BasicPublish { RoutingKey = "q" }), ct);
                await c.SendBytesAsync(FrameBytes.Header(1, 4097), ct);
                await c.SendFrameAsync(FrameType.Body, 1, new byte[4097], ct);
            }
        );
        await AssertClosedAndStillServingAsync(result, 501, 0, 0, "frame-too-large");
    }

    [Fact]
    public async Task Unknown_frame_type_is_501()
    {
        var result = await ViolateAsync((c, ct) => c.SendBytesAsync(MalformedFrames.UnknownType(7, 1, "abc"u8), ct));
        await AssertClosedAndStillServingAsync(result, 501, 0, 0, "unknown-frame-type");
    }

    [Fact]
    public async Task Undecodable_method_arguments_are_501_with_the_method_ids()
    {
        var result = await ViolateAsync(
            (c, ct) => c.SendFrameAsync(FrameType.Method, 1, new byte[] { 0, 60, 0, 40, 0 }, ct)
        );
        await AssertClosedAndStillServingAsync(result, 501, 60, 40, "undecodable-method");
    }

    [Fact]
    public async Task Body_without_header_is_505_with_the_publish_ids()
    {
        var result = await ViolateAsync(
            async (c, ct) =>
            {
                await c.SendBytesAsync(FrameBytes.Method(1, new BasicPublish { RoutingKey = "q" }), ct);
                await c.SendBytesAsync(FrameBytes.Body(1, "abc"u8), ct);
            }
        );
        await AssertClosedAndStillServingAsync(result, 505, 60, 40, "body-without-header");
    }

    [Fact]
    public async Task Header_without_publish_is_505()
    {
        var result = await ViolateAsync((c, ct) => c.SendBytesAsync(FrameBytes.Header(1, 3), ct));
        await AssertClosedAndStillServingAsync(result, 505, 0, 0, "content-without-method");
    }

    [Fact]
    public async Task Method_while_expecting_body_is_505_with_the_publish_ids()
    {
        var result = await ViolateAsync(
            async (c, ct) =>
            {
                await c.SendBytesAsync(FrameBytes.Method(1, new BasicPublish { RoutingKey = "q" }), ct);
                await c.SendBytesAsync(FrameBytes.Header(1, 3), ct);
                await c.SendBytesAsync(FrameBytes.Method(1, new BasicPublish { RoutingKey = "q" }), ct);
            }
        );
        await AssertClosedAndStillServingAsync(result, 505, 60, 40, "method-during-content");
        Assert.Contains("expected content body", result.Close.ReplyText, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Method_while_expecting_header_is_505_with_the_publish_ids()
    {
        var result = await ViolateAsync(
            async (c, ct) =>
            {
                await c.SendBytesAsync(FrameBytes.Method(1, new BasicPublish { RoutingKey = "q" }), ct);
                await c.SendBytesAsync(FrameBytes.Method(1, new BasicQos { PrefetchCount = 1 }), ct);
            }
        );
        await AssertClosedAndStillServingAsync(result, 505, 60, 40, "method-during-content");
        Assert.Contains("expected content header for class 60", result.Close.ReplyText, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Heartbeat_on_a_nonzero_channel_is_505()
    {
        var result = await ViolateAsync((c, ct) => c.SendFrameAsync(FrameType.Heartbeat, 1, [], ct));
        await AssertClosedAndStillServingAsync(result, 505, 0, 0, "heartbeat-on-channel");
    }

    [Fact]
    public async Task Method_on_a_channel_that_is_not_open_is_504_with_its_ids()
    {
        var result = await ViolateAsync((c, ct) => c.SendMethodAsync(5, new QueueDeclare { Queue = "q" }, ct));
        await AssertClosedAndStillServingAsync(result, 504, 50, 10, "channel-not-open");
        Assert.Contains("expected 'channel.open'", result.Close.ReplyText, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Content_on_a_channel_that_is_not_open_is_505()
    {
        var result = await ViolateAsync((c, ct) => c.SendBytesAsync(FrameBytes.Header(5, 3), ct));
        await AssertClosedAndStillServingAsync(result, 505, 0, 0, "content-without-method");
    }

    [Fact]
    public async Task Second_channel_open_is_504()
    {
        var result = await ViolateAsync((c, ct) => c.SendMethodAsync(1, new ChannelOpen(), ct));
        await AssertClosedAndStillServingAsync(result, 504, 20, 10, "second-channel-open");
        Assert.Contains("second 'channel.open' seen", result.Close.ReplyText, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Channel_method_on_channel_zero_is_504()
    {
        var result = await ViolateAsync((c, ct) => c.SendMethodAsync(0, new ChannelOpen(), ct));
        await AssertClosedAndStillServingAsync(result, 504, 20, 10, "unexpected-connection-method");
    }

    [Fact]
    public async Task Body_longer_than_declared_closes_on_the_next_frame_like_RabbitMQ_3()
    {
        var result = await ViolateAsync(
            async (c, ct) =>
            {
                await c.SendBytesAsync(FrameBytes.Method(1, new BasicPublish { RoutingKey = "q" }), ct);
                await c.SendBytesAsync(FrameBytes.Header(1, 5), ct);
                await c.SendBytesAsync(FrameBytes.Body(1, "0123456789"u8), ct);
                await c.SendBytesAsync(ChannelCloseMethod, ct);
            }
        );
        await AssertClosedAndStillServingAsync(result, 505, 60, 40, "method-during-content");
        var reported = Assert.Single(result.Connection.Findings, f => f.Rule == "body-exceeds-declared-size");
        Assert.False(reported.ClosedConnection);
    }

    [Fact]
    public async Task Channel_max_reached_is_530()
    {
        await using var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, ChannelMax = 2 }
        );
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        await client.HandshakeAsync(cancellationToken: cts.Token);
        await client.OpenChannelAsync(1, cts.Token);
        await client.OpenChannelAsync(2, cts.Token);
        await client.SendMethodAsync(3, new ChannelOpen(), cts.Token);
        var close = await client.ExpectConnectionCloseAsync(cts.Token);
        Assert.Equal(530, close.ReplyCode);
        Assert.Contains("channel_max (2)", close.ReplyText, StringComparison.Ordinal);
        await BrokerProbe.AssertServesAsync(broker, cts.Token);
    }

    [Fact]
    public async Task Publish_to_a_missing_exchange_closes_only_the_channel_with_404()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectAsync(_broker.Endpoint, cts.Token);
        await client.HandshakeAsync(cancellationToken: cts.Token);
        await client.OpenChannelAsync(1, cts.Token);
        await client.OpenChannelAsync(2, cts.Token);
        var connection = _broker.Connections[^1];
        await client.PublishAsync(1, "no-such-exchange", "rk", "x"u8, 4096, cancellationToken: cts.Token);
        var (channel, method) = await client.ReadMethodAsync(cts.Token);
        Assert.Equal((ushort)1, channel);
        var close = Assert.IsType<ChannelClose>(method);
        Assert.Equal(404, close.ReplyCode);
        Assert.Equal("NOT_FOUND - no exchange 'no-such-exchange' in vhost '/'", close.ReplyText);
        Assert.Equal((60, 40), (close.FailingClassId, close.FailingMethodId));
        await client.SendMethodAsync(1, new ChannelCloseOk(), cts.Token);
        // The connection and its other channel live on.
        await client.SendMethodAsync(2, new QueueDeclare { Exclusive = true }, cts.Token);
        await client.ExpectAsync<QueueDeclareOk>(cts.Token);
        await client.OpenChannelAsync(1, cts.Token);
        Assert.Null(connection.CloseInfo);
        var finding = Assert.Single(connection.Findings);
        Assert.Equal(("not-found", 404, true), (finding.Rule, finding.ReplyCode, finding.ClosedConnection));
        await client.CloseAsync(cts.Token);
        await connection.Completion.WaitAsync(cts.Token);
        Assert.Equal(CloseInitiator.Client, connection.CloseInfo!.Initiator);
    }

    private static FrameType FrameTypeOf(byte octet) => (FrameType)octet;
}
