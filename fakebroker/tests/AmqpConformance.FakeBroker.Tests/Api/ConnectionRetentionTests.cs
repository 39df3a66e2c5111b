using AmqpConformance.FakeBroker.Tests.Support;

namespace AmqpConformance.FakeBroker.Tests.Api;

/// <summary><see cref="FakeAmqpBrokerOptions.Retention"/>: ended connections are kept within a budget, oldest-ended evicted
/// first, open ones always kept; summaries and counters cover the evicted ones.</summary>
public sealed class ConnectionRetentionTests
{
    private static async Task<BrokerConnection> ServeOneAsync(
        FakeAmqpBroker broker,
        CancellationToken ct,
        bool close = true
    )
    {
        var served = InMemoryClient.Serve(broker);
        await served.Client.HandshakeAsync(cancellationToken: ct);
        if (!close)
            return served.Connection;
        await served.Client.CloseAsync(ct);
        await served.Connection.Completion.WaitAsync(ct);
        await served.DisposeAsync();
        return served.Connection;
    }

    [Fact]
    public async Task Ended_connections_beyond_the_count_budget_are_evicted_oldest_first_and_open_ones_stay()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        await using var broker = FakeAmqpBroker.CreateWithoutListener(
            new FakeAmqpBrokerOptions
            {
                HeartbeatSeconds = 0,
                Retention = new ConnectionRetention { MaxEndedConnections = 3, MaxSummaries = 4 },
            }
        );
        BrokerConnection open = await ServeOneAsync(broker, cts.Token, close: false); // id 1, stays open throughout
        for (int i = 0; i < 7; i++)
            await ServeOneAsync(broker, cts.Token); // ids 2..8, each ended before the next

        Assert.Equal([1L, 6L, 7L, 8L], broker.Connections.Select(c => c.Id));
        Assert.Same(open, broker.FindConnection(1));
        Assert.Null(broker.FindConnection(2));
        Assert.Equal(8, broker.AcceptedConnections);
        Assert.Equal(4, broker.EvictedConnections);
        Assert.Equal([5L, 6L, 7L, 8L], broker.ConnectionSummaries.Select(s => s.Id));

        ConnectionSummary last = broker.ConnectionSummaries[^1];
        Assert.Equal(new ConnectionCloseInfo(CloseInitiator.Client, 200, "bye", 0, 0), last.CloseInfo);
        Assert.Equal(broker.FindConnection(8)!.Log.NextSequence, last.Frames);
        Assert.True(
            last.BytesReceived > 8 && last.BytesSent > 0,
            $"{last.BytesReceived} received, {last.BytesSent} sent"
        );
        Assert.Equal(0, last.FindingCount);
        Assert.False(last.InternalError);
        Assert.True(last.EndedAt >= last.AcceptedAt);

        // Arrival indexes keep their meaning: evicted ones say so, retained and open ones come back, future ones wait.
        var evicted = await Assert.ThrowsAsync<InvalidOperationException>(() =>
            broker.WaitForConnectionAsync(1, cts.Token)
        );
        Assert.Contains("evicted", evicted.Message, StringComparison.Ordinal);
        Assert.Same(open, await broker.WaitForConnectionAsync(0, cts.Token));
        Assert.Equal(8, (await broker.WaitForConnectionAsync(7, cts.Token)).Id);
        Task<BrokerConnection> ninth = broker.WaitForConnectionAsync(8, cts.Token);
        Assert.False(ninth.IsCompleted);
        BrokerConnection arrived = await ServeOneAsync(broker, cts.Token);
        Assert.Same(arrived, await ninth);
        Assert.Equal([1L, 7L, 8L, 9L], broker.Connections.Select(c => c.Id));
    }

    [Fact]
    public async Task The_byte_budget_evicts_all_but_the_connection_that_ended_last()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        await using var broker = FakeAmqpBroker.CreateWithoutListener(
            new FakeAmqpBrokerOptions
            {
                HeartbeatSeconds = 0,
                Retention = new ConnectionRetention { MaxEndedConnections = null, MaxEndedLogBytes = 1 },
            }
        );
        for (int i = 0; i < 3; i++)
            await ServeOneAsync(broker, cts.Token);

        BrokerConnection kept = Assert.Single(broker.Connections);
        Assert.Equal(3, kept.Id);
        Assert.Equal(2, broker.EvictedConnections);
        Assert.All(broker.ConnectionSummaries, s =>
            Assert.True(s.EstimatedBytes > ConnectionSummary.ConnectionOverheadBytes)
        );
    }

    [Fact]
    public async Task Unlimited_retention_keeps_every_connection()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        await using var broker = FakeAmqpBroker.CreateWithoutListener(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, Retention = ConnectionRetention.Unlimited }
        );
        for (int i = 0; i < 5; i++)
            await ServeOneAsync(broker, cts.Token);
        Assert.Equal(5, broker.Connections.Count);
        Assert.Equal(0, broker.EvictedConnections);
    }

    [Theory]
    [InlineData(-1, 0, 0)]
    [InlineData(0, -1, 0)]
    [InlineData(0, 0, -1)]
    public void Negative_budgets_are_refused(int connections, long bytes, int summaries) =>
        Assert.Throws<ArgumentOutOfRangeException>(() =>
            new ConnectionRetention
            {
                MaxEndedConnections = connections,
                MaxEndedLogBytes = bytes,
                MaxSummaries = summaries,
            }
        );
}
