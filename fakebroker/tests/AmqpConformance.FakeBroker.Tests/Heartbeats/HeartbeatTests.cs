using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Harness.Protocol;
using AmqpConformance.Harness.Recording;

namespace AmqpConformance.FakeBroker.Tests.Heartbeats;

/// <summary>Heartbeats at a 1-second interval: the broker sends them, and closes the socket (without
/// connection.close, as RabbitMQ does) when nothing arrives for two intervals.</summary>
public sealed class HeartbeatTests
{
    [Fact]
    public async Task Broker_sends_heartbeats_and_keeps_a_chatty_client()
    {
        await using var broker = await FakeBroker.StartAsync(new FakeBrokerOptions { HeartbeatSeconds = 1 });
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(15));
        await using var client = await RawTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        await client.HandshakeAsync(cts.Token, heartbeat: 1);
        Assert.Equal((ushort)1, client.Tune!.Heartbeat);
        var connection = broker.Connections[^1];
        Assert.Equal((ushort)1, connection.HeartbeatSeconds);

        // Send a heartbeat every 400 ms for ~3.2 s, and count the broker's.
        int received = 0;
        var reading = Task.Run(async () =>
        {
            while (await client.ReadFrameAsync(cts.Token) is { } frame)
            {
                if (frame.IsHeartbeat)
                {
                    Assert.Equal((ushort)0, frame.Channel);
                    Assert.Empty(frame.Payload);
                    Interlocked.Increment(ref received);
                }
            }
        });
        for (int i = 0; i < 8; i++)
        {
            await client.SendFrameAsync(8, 0, ReadOnlySpan<byte>.Empty, cancellationToken: cts.Token);
            await Task.Delay(400, cts.Token);
        }
        Assert.False(connection.Completion.IsCompleted, $"the broker closed a connection that sent heartbeats: {connection.CloseInfo}");
        Assert.InRange(Volatile.Read(ref received), 2, 5);
        Assert.Empty(connection.Findings);
        var sent = connection.Log.Snapshot().Where(f => f.Direction == FrameDirection.Sent && f.Type == FrameType.Heartbeat).ToList();
        Assert.True(sent.Count >= Volatile.Read(ref received), $"{sent.Count} heartbeats recorded as sent, {received} received");
        await connection.CloseAsync();
        await reading.WaitAsync(cts.Token);
    }

    [Fact]
    public async Task Silent_client_is_dropped_after_two_missed_intervals()
    {
        await using var broker = await FakeBroker.StartAsync(new FakeBrokerOptions { HeartbeatSeconds = 1 });
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(15));
        await using var client = await RawTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        await client.HandshakeAsync(cts.Token, heartbeat: 1);
        var connection = broker.Connections[^1];
        var started = DateTime.UtcNow;
        var methods = await client.ReadUntilClosedAsync(cts.Token); // heartbeats arrive, then the socket closes
        var elapsed = DateTime.UtcNow - started;
        Assert.Empty(methods);
        await connection.Completion.WaitAsync(cts.Token);
        var finding = Assert.Single(connection.Findings);
        Assert.Equal(("missed-heartbeats", true), (finding.Rule, finding.ClosedConnection));
        Assert.Equal((CloseInitiator.Broker, (ushort)0), (connection.CloseInfo!.Initiator, connection.CloseInfo.ReplyCode));
        Assert.True(elapsed >= TimeSpan.FromSeconds(2), $"closed after {elapsed.TotalSeconds:0.0} s, before two intervals passed");
    }

    [Fact]
    public async Task Heartbeat_zero_in_tune_ok_means_none()
    {
        await using var broker = await FakeBroker.StartAsync(new FakeBrokerOptions { HeartbeatSeconds = 1 });
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(15));
        await using var client = await RawTestClient.ConnectAsync(broker.Endpoint, cts.Token);
        await client.HandshakeAsync(cts.Token, heartbeat: 0);
        var connection = broker.Connections[^1];
        await Task.Delay(2500, cts.Token);
        Assert.False(connection.Completion.IsCompleted);
        Assert.DoesNotContain(connection.Log.Snapshot(), f => f.Type == FrameType.Heartbeat);
        await client.CloseAsync(cts.Token);
    }
}
