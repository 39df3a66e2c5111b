using System.Text;
using AmqpConformance.FakeBroker;
using AmqpConformance.Harness.Client;
using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Tests.Writers.Support;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Transport;
using AmqpConformance.TestSupport.Peers;

namespace AmqpConformance.Harness.Tests.Client;

public sealed class HarnessConnectionTests
{
    /// <summary>The scripted broker never answers connection.close: do not wait long for its close-ok.</summary>
    private static readonly TimeSpan NoCloseOk = TimeSpan.FromMilliseconds(200);

    private static CancellationTokenSource Deadline() => new(WriterTestKit.TestTimeout);

    /// <summary>What the scripted broker offers: 100 channels, <paramref name="frameMax"/>, 60 s heartbeats.</summary>
    private static ConnectionTune Tune(uint frameMax) =>
        new()
        {
            ChannelMax = 100,
            FrameMax = frameMax,
            Heartbeat = 60,
        };

    [Fact]
    public async Task The_handshake_logs_in_with_PLAIN_and_takes_the_lower_frame_max()
    {
        using var deadline = Deadline();
        var (client, server) = DuplexPipe.CreatePair();
        var broker = AmqpTestBroker.Over(server.Input, server.Output);
        var handshake = broker.HandshakeAsync(Tune(131072), deadline.Token);
        await using var connection = await HarnessConnection.ConnectAsync(
            client,
            new HarnessClientOptions
            {
                FrameMax = 8192,
                UserName = "u",
                Password = "p",
                VirtualHost = "vh",
                CloseTimeout = NoCloseOk,
            },
            deadline.Token
        );
        var (startOk, tuneOk, open) = await handshake;

        Assert.Equal("PLAIN", startOk.Mechanism);
        Assert.Equal("\0u\0p", Encoding.UTF8.GetString(startOk.Response.Span));
        Assert.Equal(8192u, tuneOk.FrameMax);
        Assert.Equal(0, tuneOk.Heartbeat);
        Assert.Equal("vh", open.VirtualHost);
        Assert.Equal(8192, connection.FrameMax);
        Assert.Equal(100, connection.ChannelMax);
    }

    [Theory]
    [InlineData(0u, 0, 0)]
    [InlineData(0u, 8192, 8192)]
    [InlineData(4096u, 0, 4096)]
    [InlineData(4096u, 131072, 4096)]
    public async Task Frame_max_negotiation_follows_the_zero_means_unlimited_rule(uint offered, int asked, int expected)
    {
        using var deadline = Deadline();
        var (client, server) = DuplexPipe.CreatePair();
        var handshake = AmqpTestBroker.Over(server.Input, server.Output).HandshakeAsync(Tune(offered), deadline.Token);
        await using var connection = await HarnessConnection.ConnectAsync(
            client,
            new HarnessClientOptions { FrameMax = asked, CloseTimeout = NoCloseOk },
            deadline.Token
        );
        Assert.Equal((uint)expected, (await handshake).TuneOk.FrameMax);
        Assert.Equal(expected, connection.FrameMax);
    }

    [Fact]
    public async Task Confirms_settle_single_multiple_and_nacked_publishes()
    {
        using var deadline = Deadline();
        var (client, server) = DuplexPipe.CreatePair();
        var broker = AmqpTestBroker.Over(server.Input, server.Output);
        var handshake = broker.HandshakeAsync(Tune(4096), deadline.Token);
        await using var connection = await HarnessConnection.ConnectAsync(
            client,
            new HarnessClientOptions { WriterFactory = WriterModes.Inline, CloseTimeout = NoCloseOk },
            deadline.Token
        );
        await handshake;

        var opening = connection.OpenChannelAsync(confirms: true, deadline.Token);
        await broker.ExpectAsync<ChannelOpen>(deadline.Token);
        await broker.SendHeartbeatAsync(deadline.Token); // ignored by the client
        await broker.SendMethodAsync(1, new ChannelOpenOk(), deadline.Token);
        await broker.ExpectAsync<ConfirmSelect>(deadline.Token);
        await broker.SendMethodAsync(1, new ConfirmSelectOk(), deadline.Token);
        var channel = await opening.Within();
        Assert.True(channel.ConfirmsEnabled);

        var sequences = new List<ulong>();
        for (int i = 0; i < 5; i++)
        {
            sequences.Add(await channel.PublishAsync("", "q", TestBodies.Create(0, i, 5000)).Within());
            var body = (await broker.ExpectContentAsync<BasicPublish>(deadline.Token)).Body;
            Assert.Equal(TestBodies.Create(0, i, 5000), body);
        }
        Assert.Equal([1ul, 2, 3, 4, 5], sequences);
        var waiting = channel.WaitForConfirmsAsync(deadline.Token);
        await broker.SendMethodAsync(1, new BasicAck { DeliveryTag = 3, Multiple = true }, deadline.Token);
        await broker.SendMethodAsync(1, new BasicNack { DeliveryTag = 4 }, deadline.Token);
        Assert.False(
            waiting.IsCompleted && !waiting.IsFaulted && waiting.Result,
            "settled before publish 5 was confirmed"
        );
        await broker.SendMethodAsync(1, new BasicAck { DeliveryTag = 5 }, deadline.Token);

        Assert.False(await waiting.Within()); // one was nacked
        var confirmations = channel.Confirmations;
        Assert.Equal(new ulong[] { 1, 2, 3, 4, 5 }, confirmations.Keys.Order());
        Assert.True(confirmations[1] && confirmations[2] && confirmations[3] && confirmations[5]);
        Assert.False(confirmations[4]);
    }

    [Fact]
    public async Task A_broker_connection_close_is_answered_and_faults_the_connection_with_its_reply()
    {
        using var deadline = Deadline();
        var (client, server) = DuplexPipe.CreatePair();
        var broker = AmqpTestBroker.Over(server.Input, server.Output);
        var handshake = broker.HandshakeAsync(Tune(4096), deadline.Token);
        await using var connection = await HarnessConnection.ConnectAsync(client, cancellationToken: deadline.Token);
        await handshake;

        await broker.SendMethodAsync(
            0,
            new ConnectionClose { ReplyCode = 320, ReplyText = "CONNECTION_FORCED - shutdown" },
            deadline.Token
        );
        await broker.ExpectAsync<ConnectionCloseOk>(deadline.Token);
        await connection.Ended.WaitAsync(deadline.Token);

        var fault = Assert.IsType<HarnessConnectionException>(connection.Fault);
        Assert.Equal((ushort)320, fault.ReplyCode);
        Assert.Contains("CONNECTION_FORCED", fault.Message);
        await Assert.ThrowsAsync<HarnessConnectionException>(() =>
            connection.OpenChannelAsync(cancellationToken: deadline.Token)
        );
    }

    [Fact]
    public async Task A_refused_login_fails_ConnectAsync_with_the_brokers_reply()
    {
        using var deadline = Deadline();
        await using var broker = FakeAmqpBroker.CreateWithoutListener();
        var (client, server) = DuplexPipe.CreatePair();
        broker.Serve(server);

        var ex = await Assert.ThrowsAsync<HarnessConnectionException>(() =>
            HarnessConnection.ConnectAsync(client, new HarnessClientOptions { Password = "wrong" }, deadline.Token)
        );
        Assert.Equal((ushort)403, ex.ReplyCode);
    }

    [Fact]
    public async Task The_fake_broker_over_TCP_receives_publishes_and_a_clean_close()
    {
        using var deadline = Deadline();
        await using var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { FrameMax = 4096 },
            deadline.Token
        );
        var pool = new TrackingArrayPool();
        var connection = await HarnessConnection.ConnectAsync(
            "127.0.0.1",
            broker.Port,
            new HarnessClientOptions { Pool = pool },
            deadline.Token
        );
        var server = await broker.WaitForConnectionAsync(0, deadline.Token);
        var channel = await connection.OpenChannelAsync(confirms: true, deadline.Token);
        for (int i = 0; i < 10; i++)
            Assert.Equal((ulong)i + 1, await channel.PublishAsync("", "q", TestBodies.Create(1, i, 10_000)).Within());
        Assert.True(await channel.WaitForConfirmsAsync(deadline.Token));
        await connection.DisposeAsync().Within();
        await server.Completion.WaitAsync(deadline.Token);

        Assert.Equal(10, server.Published.Count);
        Assert.Equal(CloseInitiator.Client, server.CloseInfo?.Initiator);
        Assert.Empty(server.Findings);
        pool.AssertClean();
    }

    [Fact]
    public async Task A_broker_channel_close_fails_only_that_channel()
    {
        using var deadline = Deadline();
        await using var broker = FakeAmqpBroker.CreateWithoutListener();
        var (client, server) = DuplexPipe.CreatePair();
        broker.Serve(server);
        await using var connection = await HarnessConnection.ConnectAsync(client, cancellationToken: deadline.Token);
        var doomed = await connection.OpenChannelAsync(cancellationToken: deadline.Token);

        await doomed.PublishAsync("no-such-exchange", "q", new byte[10]).Within();
        await WriterTestKit.Eventually(() => doomed.Fault is not null, "the broker closed the channel");

        Assert.Equal((ushort)404, Assert.IsType<HarnessConnectionException>(doomed.Fault).ReplyCode);
        await Assert.ThrowsAsync<HarnessConnectionException>(() => doomed.PublishAsync("", "q", new byte[10]).AsTask());
        Assert.Null(connection.Fault);
        var fresh = await connection.OpenChannelAsync(cancellationToken: deadline.Token);
        await fresh.PublishAsync("", "q", new byte[10]).Within();
    }

    [Fact]
    public async Task With_heartbeats_on_the_client_sends_heartbeat_frames_through_its_writer()
    {
        using var deadline = Deadline();
        var (client, server) = DuplexPipe.CreatePair();
        var broker = AmqpTestBroker.Over(server.Input, server.Output);
        var handshake = broker.HandshakeAsync(Tune(4096), deadline.Token);
        await using var connection = await HarnessConnection.ConnectAsync(
            client,
            new HarnessClientOptions
            {
                HeartbeatSeconds = 1,
                WriterFactory = WriterModes.Coalescing,
                CloseTimeout = NoCloseOk,
            },
            deadline.Token
        );
        Assert.Equal(1, (await handshake).TuneOk.Heartbeat);

        var frame = await broker.ReadFrameAsync(deadline.Token); // every 0.5 s
        Assert.NotNull(frame);
        Assert.Equal(FrameType.Heartbeat, frame.Type);
        Assert.Equal(0, frame.Channel);
        Assert.Null(frame.MethodOrNull);
    }

    [Fact]
    public void Options_are_validated()
    {
        Assert.Throws<ArgumentException>(() => new HarnessClientOptions { FrameMax = 1000 }.Validate());
        Assert.Throws<ArgumentException>(() => new HarnessClientOptions { WriterQueueCapacity = 0 }.Validate());
        new HarnessClientOptions().Validate();
    }
}
