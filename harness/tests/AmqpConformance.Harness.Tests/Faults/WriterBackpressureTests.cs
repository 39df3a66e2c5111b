using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;
using Xunit.Abstractions;
using static AmqpConformance.Harness.Tests.Faults.FaultyTransportTestKit;

namespace AmqpConformance.Harness.Tests.Faults;

/// <summary>A writer facing a stalled transport must block (or fail), never buffer without bound: publishers keep
/// trying for a while, and what the writer, the pool and the link hold stays under a bound that does not grow
/// with time. After the stall is released everything drains and every rental comes back.</summary>
[Trait("Area", "Faults")]
public sealed class WriterBackpressureTests(ITestOutputHelper output)
{
    private const int FrameMax = 4096;
    private const int Publishers = 4;
    private const int QueueCapacity = 16;
    private const int BodySize = 1000;
    private const long StallAfter = 2000;
    private const long Pause = 16 * 1024;
    private const long BatchAllowance = 64 * 1024;

    [Theory]
    [InlineData("Background")]
    [InlineData("Inline")]
    [InlineData("Coalescing")]
    public async Task Stalled_transport_blocks_publishers_with_bounded_memory(string mode)
    {
        using var cts = Timeout(30);
        var pool = new TrackingArrayPool();
        var options = new FaultyTransportOptions
        {
            TimeMode = FaultTimeMode.Virtual,
            PauseWriterThreshold = Pause,
            ResumeWriterThreshold = Pause / 2,
        };
        await using var transport = FaultyTransport.Create(new FaultPlan(1, [new StallFault(StallAfter)]), options);
        var draining = ReadAllAsync(transport.BrokerSide.Input, cts.Token);
        IFrameWriter writer = WriterModes
            .FromName(mode)!
            .CreateWriter(
                new WriterContext(transport.ClientSide.Output, pool, FrameMax) { QueueCapacity = QueueCapacity }
            );

        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cts.Token);
        long completed = 0;
        byte[] body = Pattern(BodySize);
        async Task PublishAsync()
        {
            while (!stop.IsCancellationRequested)
            {
                OutgoingCommand command = CommandBuilder.BuildPublish(pool, FrameMax, 1, "", "q", false, null, body);
                try
                {
                    await writer.WriteAsync(command, stop.Token);
                    Interlocked.Increment(ref completed);
                }
                catch (OperationCanceledException)
                {
                    return;
                }
            }
        }
        Task[] publishers = [.. Enumerable.Range(0, Publishers).Select(_ => Task.Run(PublishAsync))];

        // First the stall itself (its point delivered), however long the publishers take to get there on a loaded
        // machine; then a while of them trying against it.
        while (transport.UpstreamDeliveredBytes < StallAfter)
            await Task.Delay(5, cts.Token);
        long peakPoolBytes = 0;
        for (int i = 0; i < 50; i++) // 500 ms of publishers trying against the stall
        {
            await Task.Delay(10, cts.Token);
            peakPoolBytes = Math.Max(peakPoolBytes, pool.Outstanding.Sum(r => (long)r.Size));
        }
        long completedDuringStall = Interlocked.Read(ref completed);

        output.WriteLine(
            $"{mode}: completed during stall {completedDuringStall}, link backlog peak {transport.PeakUpstreamBacklogBytes} B, pool peak {peakPoolBytes} B"
        );
        long maxCompleted = (StallAfter + Pause + BatchAllowance) / BodySize + QueueCapacity + Publishers + 2;
        Assert.True(
            completedDuringStall <= maxCompleted,
            $"{mode}: {completedDuringStall} publishes completed against a stalled transport (bound {maxCompleted})"
        );
        Assert.True(
            transport.PeakUpstreamBacklogBytes <= Pause + BatchAllowance,
            $"{mode}: the link held {transport.PeakUpstreamBacklogBytes} bytes"
        );
        long poolBound = (QueueCapacity + Publishers + 4) * 4096L;
        Assert.True(peakPoolBytes <= poolBound, $"{mode}: {peakPoolBytes} bytes rented at once (bound {poolBound})");
        Assert.Equal(StallAfter, transport.UpstreamDeliveredBytes);

        stop.Cancel();
        transport.Release();
        await Task.WhenAll(publishers).WaitAsync(cts.Token);
        await writer.DisposeAsync();
        await transport.ClientSide.Output.CompleteAsync();
        var (bytes, _, error) = await draining;
        Assert.Null(error);
        Assert.True(bytes.Length >= StallAfter);
        PoolLedgerReport ledger = pool.Verify();
        Assert.True(ledger.IsClean, ledger.ToString());
    }
}
