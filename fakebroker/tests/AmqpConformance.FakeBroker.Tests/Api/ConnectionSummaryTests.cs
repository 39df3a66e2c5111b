using AmqpConformance.FakeBroker.Tests.Support;

namespace AmqpConformance.FakeBroker.Tests.Api;

/// <summary><see cref="ConnectionSummary"/>: what an ended connection leaves behind, and what making it
/// costs.</summary>
public sealed class ConnectionSummaryTests
{
    /// <summary>Every connection's end makes a summary, so its cost is paid per connection: a few hundred bytes for the
    /// summary itself, not a fresh batch of frame facts (256 of them, ~20 KiB) each time.</summary>
    [Fact]
    public async Task Summarizing_an_ended_connection_allocates_the_summary_and_not_a_batch_of_facts()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        await using var broker = FakeAmqpBroker.CreateWithoutListener(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0 }
        );
        var served = InMemoryClient.Serve(broker);
        await served.Client.HandshakeAsync(cancellationToken: cts.Token);
        await served.Client.CloseAsync(cts.Token);
        await served.Connection.Completion.WaitAsync(cts.Token);
        await served.DisposeAsync();

        var endedAt = DateTimeOffset.UtcNow;
        long least = long.MaxValue;
        ConnectionSummary? summary = null;
        for (int i = 0; i < 5; i++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            summary = ConnectionSummary.Of(served.Connection, endedAt);
            least = Math.Min(least, GC.GetAllocatedBytesForCurrentThread() - before);
        }

        Assert.Equal(served.Connection.Log.NextSequence, summary!.Frames);
        Assert.True(least < 2048, $"summarizing a connection allocated {least} bytes");
    }
}
