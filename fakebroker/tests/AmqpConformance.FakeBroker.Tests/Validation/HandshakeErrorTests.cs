using System.Buffers;
using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Validation;

/// <summary>Handshake failures answered as RabbitMQ 3.10 answers them (checked against the real server).</summary>
public sealed class HandshakeErrorTests : IAsyncLifetime
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(15);
    private FakeAmqpBroker _broker = null!;

    public async Task InitializeAsync() =>
        _broker = await FakeAmqpBroker.StartAsync(new FakeAmqpBrokerOptions { HeartbeatSeconds = 0 });

    public async Task DisposeAsync() => await _broker.DisposeAsync();

    [Theory]
    [InlineData(new byte[] { (byte)'A', (byte)'M', (byte)'Q', (byte)'P', 0, 0, 9, 2 })]
    [InlineData(new byte[] { (byte)'A', (byte)'M', (byte)'Q', (byte)'P', 0, 1, 0, 0 })]
    [InlineData(new byte[] { (byte)'G', (byte)'E', (byte)'T', (byte)' ', (byte)'/', (byte)' ', (byte)'H', (byte)'T' })]
    public async Task Bad_protocol_header_gets_the_091_header_back_and_the_socket_closes(byte[] header)
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectAsync(_broker.Endpoint, cts.Token);
        await client.SendBytesAsync(header, cts.Token);
        var answer = await client.ReadBytesAsync(16, cts.Token);
        Assert.Equal("AMQP\0\0\u0009\u0001"u8.ToArray(), answer);
        var connection = _broker.Connections[^1];
        await connection.Completion.WaitAsync(cts.Token);
        Assert.Equal(
            (CloseInitiator.Broker, (ushort)0),
            (connection.CloseInfo!.Initiator, connection.CloseInfo.ReplyCode)
        );
        Assert.Single(connection.Findings, f => f.Rule == "bad-protocol-header");
        await BrokerProbe.AssertServesAsync(_broker, cts.Token);
    }

    [Fact]
    public async Task Wrong_password_is_403_when_the_client_has_authentication_failure_close()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectAsync(_broker.Endpoint, cts.Token);
        await client.HandshakeAsync(new TestPeerHandshake { Password = "wrong" }, HandshakeStep.StartOk, cts.Token);
        var close = await client.ExpectConnectionCloseAsync(cts.Token);
        Assert.Equal(403, close.ReplyCode);
        Assert.Equal(
            "ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN. For details see the broker logfile.",
            close.ReplyText
        );
        Assert.Equal((0, 0), (close.FailingClassId, close.FailingMethodId));
        var connection = _broker.Connections[^1];
        await connection.Completion.WaitAsync(cts.Token);
        Assert.Single(connection.Findings, f => f.Rule == "access-refused" && f.ReplyCode == 403);
        Assert.Null(connection.UserName);
        await BrokerProbe.AssertServesAsync(_broker, cts.Token);
    }

    [Fact]
    public async Task Wrong_password_without_the_capability_just_closes_the_socket()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectAsync(_broker.Endpoint, cts.Token);
        await client.HandshakeAsync(
            new TestPeerHandshake { User = "nobody", AuthenticationFailureClose = false },
            HandshakeStep.StartOk,
            cts.Token
        );
        Assert.Empty(await client.ReadUntilClosedAsync(cts.Token));
        await BrokerProbe.AssertServesAsync(_broker, cts.Token);
    }

    [Fact]
    public async Task Unknown_virtual_host_is_530_on_connection_open()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectAsync(_broker.Endpoint, cts.Token);
        await client.HandshakeAsync(stopAfter: HandshakeStep.StartOk, cancellationToken: cts.Token);
        var tune = await client.ExpectAsync<ConnectionTune>(cts.Token);
        await client.SendMethodAsync(
            0,
            new ConnectionTuneOk { ChannelMax = tune.ChannelMax, FrameMax = tune.FrameMax },
            cts.Token
        );
        await client.SendMethodAsync(0, new ConnectionOpen { VirtualHost = "nope" }, cts.Token);
        var close = await client.ExpectConnectionCloseAsync(cts.Token);
        Assert.Equal(
            (530, "NOT_ALLOWED - vhost nope not found", 10, 40),
            (close.ReplyCode, close.ReplyText, close.FailingClassId, close.FailingMethodId)
        );
        await BrokerProbe.AssertServesAsync(_broker, cts.Token);
    }

    [Theory]
    [InlineData(100u)] // below 4096
    [InlineData(0u)] // unlimited, while the broker has a limit
    [InlineData(200000u)] // above the broker's 131072
    public async Task Tune_ok_frame_max_out_of_range_drops_the_socket_like_RabbitMQ_3(uint frameMax)
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectAsync(_broker.Endpoint, cts.Token);
        await client.HandshakeAsync(stopAfter: HandshakeStep.StartOk, cancellationToken: cts.Token);
        var tune = await client.ExpectAsync<ConnectionTune>(cts.Token);
        Assert.Equal(131072u, tune.FrameMax);
        await client.SendMethodAsync(
            0,
            new ConnectionTuneOk { ChannelMax = tune.ChannelMax, FrameMax = frameMax },
            cts.Token
        );
        Assert.Empty(await client.ReadUntilClosedAsync(cts.Token));
        var connection = _broker.Connections[^1];
        await connection.Completion.WaitAsync(cts.Token);
        var finding = Assert.Single(connection.Findings, f => f.Rule == "tune-ok-out-of-range");
        Assert.Equal(530, finding.ReplyCode);
        Assert.Contains($"frame_max = {frameMax}", connection.CloseInfo!.ReplyText, StringComparison.Ordinal);
        await BrokerProbe.AssertServesAsync(_broker, cts.Token);
    }

    [Fact]
    public async Task Unknown_method_id_drops_the_socket_like_RabbitMQ_3()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectAsync(_broker.Endpoint, cts.Token);
        await client.HandshakeAsync(cancellationToken: cts.Token);
        await client.OpenChannelAsync(1, cts.Token);
        await client.SendFrameAsync(FrameType.Method, 1, new byte[] { 0, 60, 0, 99 }, cts.Token);
        Assert.Empty(await client.ReadUntilClosedAsync(cts.Token));
        var connection = _broker.Connections[^1];
        await connection.Completion.WaitAsync(cts.Token);
        Assert.Equal(
            (CloseInitiator.Broker, (ushort)0, (ushort)60, (ushort)99),
            (
                connection.CloseInfo!.Initiator,
                connection.CloseInfo.ReplyCode,
                connection.CloseInfo.ClassId,
                connection.CloseInfo.MethodId
            )
        );
        Assert.Single(connection.Findings, f => f.Rule == "unknown-method" && f.ClosedConnection);
        await BrokerProbe.AssertServesAsync(_broker, cts.Token);
    }

    [Fact]
    public async Task Amqplain_credentials_are_accepted()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectAsync(_broker.Endpoint, cts.Token);
        await client.SendProtocolHeaderAsync(cts.Token);
        var start = await client.ExpectAsync<ConnectionStart>(cts.Token);
        Assert.Equal("PLAIN AMQPLAIN", start.Mechanisms);
        var capabilities = start.ServerProperties["capabilities"].AsTable();
        foreach (
            var name in new[]
            {
                "publisher_confirms",
                "exchange_exchange_bindings",
                "basic.nack",
                "consumer_cancel_notify",
                "connection.blocked",
                "authentication_failure_close",
                "per_consumer_qos",
                "direct_reply_to",
            }
        )
            Assert.True(capabilities[name].AsBoolean(), name);
        Assert.Equal("AmqpConformance FakeBroker", start.ServerProperties["product"].AsString());
        // AMQPLAIN: a field table's entries without its length prefix.
        var table = new System.Buffers.ArrayBufferWriter<byte>();
        foreach (var (key, value) in new[] { ("LOGIN", "guest"), ("PASSWORD", "guest") })
        {
            table.Write(new[] { (byte)key.Length });
            table.Write(System.Text.Encoding.ASCII.GetBytes(key));
            table.Write(new[] { (byte)'S' });
            var length = new byte[4];
            System.Buffers.Binary.BinaryPrimitives.WriteInt32BigEndian(length, value.Length);
            table.Write(length);
            table.Write(System.Text.Encoding.ASCII.GetBytes(value));
        }
        await client.SendMethodAsync(
            0,
            new ConnectionStartOk { Mechanism = "AMQPLAIN", Response = table.WrittenMemory.ToArray() },
            cts.Token
        );
        var tune = await client.ExpectAsync<ConnectionTune>(cts.Token);
        Assert.Equal((2047, 131072u, 0), (tune.ChannelMax, tune.FrameMax, tune.Heartbeat));
        Assert.Equal("guest", _broker.Connections[^1].UserName);
    }
}
