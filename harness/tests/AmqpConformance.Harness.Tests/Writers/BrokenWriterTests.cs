using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Tests.Writers.Support;
using AmqpConformance.Harness.Writers;
using AmqpConformance.SelfTest;
using AmqpConformance.SelfTest.Zoo.Bodies;
using AmqpConformance.SelfTest.Zoo.Cancellation;
using AmqpConformance.SelfTest.Zoo.Interleaving;
using AmqpConformance.SelfTest.Zoo.Ordering;
using AmqpConformance.SelfTest.Zoo.Pools;
using static AmqpConformance.Harness.Tests.Writers.Support.WriterTestKit;

namespace AmqpConformance.Harness.Tests.Writers;

/// <summary>Each deliberately broken writer, caught in the act: the defect is shown directly on the wire or in the pool
/// ledger.</summary>
[Trait("WriterMode", "Broken")]
public sealed class BrokenWriterTests
{
    private const int FrameMax = 4096;

    [Fact]
    public async Task SplitLockWriter_interleaves_the_frames_of_concurrent_commands()
    {
        var (wire, pool) = await RunConcurrentAsync(
            c => new SplitLockWriter(c),
            publishers: 4,
            perPublisher: 10,
            bodySize: 12_000
        );
        Assert.Contains(wire.Violations, v => v.Contains("interleaved", StringComparison.Ordinal)); // NoInterleaving/channel-content-interleaved
        pool.AssertClean(); // its only defect is the interleaving
    }

    [Fact]
    public async Task SplitLockWriter_looks_correct_with_a_single_publisher()
    {
        var (wire, _) = await RunConcurrentAsync(
            c => new SplitLockWriter(c),
            publishers: 1,
            perPublisher: 10,
            bodySize: 12_000
        );
        Assert.Empty(wire.Violations);
    }

    [Fact]
    public async Task EarlyCompletionWriter_puts_a_reused_body_on_the_wire()
    {
        var pool = new TrackingArrayPool();
        await using var capture = new WireCapture();
        var writer = new EarlyCompletionWriter(new WriterContext(capture.Writer, pool, FrameMax));
        for (int s = 0; s < 20; s++)
        {
            // The body lives in a pooled buffer that the caller returns as soon as the call completes.
            byte[] buffer = pool.Rent(6000);
            TestBodies.Fill(buffer.AsSpan(0, 6000), 0, s);
            await writer.WriteAsync(Publish(pool, FrameMax, buffer.AsMemory(0, 6000))).AsTask().WaitAsync(TestTimeout);
            pool.Return(buffer);
        }
        await writer.DisposeAsync().AsTask().WaitAsync(TestTimeout);
        var wire = WireAnalysis.Of(await capture.CompleteAsync(), FrameMax);

        Assert.Equal(20, wire.Publishes.Count);
        Assert.Contains(wire.Publishes, p =>
            p.Body.Take(16).All(b => b == pool.Options.PoisonByte) || !TestBodies.IsIntact(p.Body)
        );
    }

    [Fact]
    public async Task ThreadPoolDispatchWriter_loses_the_order_of_sequential_calls()
    {
        bool reordered = false;
        for (int round = 0; round < 10 && !reordered; round++)
        {
            var pool = new TrackingArrayPool();
            await using var capture = new WireCapture();
            var writer = new ThreadPoolDispatchWriter(new WriterContext(capture.Writer, pool, FrameMax));
            for (int s = 0; s < 200; s++)
                await writer
                    .WriteAsync(Publish(pool, FrameMax, TestBodies.Create(0, s, 100)))
                    .AsTask()
                    .WaitAsync(TestTimeout);
            await writer.DisposeAsync().AsTask().WaitAsync(TestTimeout);
            var wire = WireAnalysis.Of(await capture.CompleteAsync(), FrameMax);
            Assert.Empty(wire.Violations); // commands stay whole; only their order is wrong
            var order = wire.Publishes.Select(p => TestBodies.Identify(p.Body).Sequence).ToList();
            Assert.Equal(200, order.Count);
            reordered = !order.SequenceEqual(Enumerable.Range(0, 200));
        }
        Assert.True(reordered, "200 sequential calls reached the wire in call order 10 times in a row");
    }

    [Fact]
    public async Task LeakOnFaultWriter_leaks_rentals_when_the_output_fails()
    {
        var pool = new TrackingArrayPool();
        await using var capture = new WireCapture();
        capture.Writer.FailOnFlush = 3;
        var writer = new LeakOnFaultWriter(new WriterContext(capture.Writer, pool, FrameMax));
        var owner = new OwnerProbe();
        for (int s = 0; s < 2; s++)
            Assert.Null(await Outcome(writer.WriteAsync(Publish(pool, FrameMax, TestBodies.Create(0, s, 5000)))));
        Assert.Equal(0, pool.OutstandingCount); // healthy output: everything came back
        Assert.IsType<InjectedFault>(
            await Outcome(writer.WriteAsync(Publish(pool, FrameMax, TestBodies.Create(0, 2, 5000), owner)))
        );
        await writer.DisposeAsync().Within();

        var report = pool.Verify();
        Assert.Equal(2, report.Findings.Count(f => f.Kind == PoolFindingKind.Leak)); // frames buffer + staging buffer
        Assert.Equal(0, owner.Disposals);
    }

    [Fact]
    public async Task DoubleReturnWriter_returns_a_buffer_twice_for_multi_frame_bodies_only()
    {
        var pool = new TrackingArrayPool();
        await using var capture = new WireCapture();
        var writer = new DoubleReturnWriter(new WriterContext(capture.Writer, pool, FrameMax));
        await writer.WriteAsync(Publish(pool, FrameMax, TestBodies.Create(0, 0, 1000))).Within();
        Assert.Empty(pool.Findings); // one body frame: fine
        await writer.WriteAsync(Publish(pool, FrameMax, TestBodies.Create(0, 1, 10_000))).Within();
        await writer.DisposeAsync().Within();

        var finding = Assert.Single(pool.Findings);
        Assert.Equal(PoolFindingKind.DoubleReturn, finding.Kind);
        Assert.Throws<PoolLedgerException>(pool.AssertClean);
    }

    [Fact]
    public async Task TornCancellationWriter_leaves_half_a_frame_on_the_wire()
    {
        var pool = new TrackingArrayPool();
        await using var capture = new WireCapture();
        using var cts = new CancellationTokenSource();
        capture.Writer.BeforeFlush = n =>
        {
            if (n == 1)
                cts.Cancel();
        }; // cancel while the first body frame is half written
        var writer = new TornCancellationWriter(new WriterContext(capture.Writer, pool, FrameMax));

        var cancelled = await Outcome(
            writer.WriteAsync(Publish(pool, FrameMax, TestBodies.Create(0, 0, 10_000)), cts.Token)
        );
        var next = await Outcome(writer.WriteAsync(Publish(pool, FrameMax, TestBodies.Create(0, 1, 100))));
        await writer.DisposeAsync().Within();

        Assert.IsAssignableFrom<OperationCanceledException>(cancelled);
        Assert.Null(next);
        var wire = WireAnalysis.Of(await capture.CompleteAsync(), FrameMax);
        Assert.NotEmpty(wire.Violations); // the stream after the torn frame no longer parses as whole commands
        Assert.DoesNotContain(wire.Publishes, p =>
            p.Body.Length == 100 && TestBodies.IsIntact(p.Body) && TestBodies.Identify(p.Body).Sequence == 1
        );
    }

    [Fact]
    public async Task TornCancellationWriter_is_correct_without_cancellation()
    {
        var (wire, pool) = await RunConcurrentAsync(
            c => new TornCancellationWriter(c),
            publishers: 3,
            perPublisher: 5,
            bodySize: 10_000
        );
        Assert.Empty(wire.Violations);
        pool.AssertClean();
    }

    private static async Task<(WireAnalysis Wire, TrackingArrayPool Pool)> RunConcurrentAsync(
        Func<WriterContext, IFrameWriter> create,
        int publishers,
        int perPublisher,
        int bodySize
    )
    {
        var pool = new TrackingArrayPool();
        await using var capture = new WireCapture();
        var writer = create(new WriterContext(capture.Writer, pool, FrameMax));
        await Task.WhenAll(
                Enumerable
                    .Range(0, publishers)
                    .Select(p =>
                        Task.Run(async () =>
                        {
                            for (int s = 0; s < perPublisher; s++)
                                await writer
                                    .WriteAsync(Publish(pool, FrameMax, TestBodies.Create(p, s, bodySize)))
                                    .AsTask()
                                    .WaitAsync(TestTimeout);
                        })
                    )
            )
            .WaitAsync(TestTimeout);
        await writer.DisposeAsync().AsTask().WaitAsync(TestTimeout);
        return (WireAnalysis.Of(await capture.CompleteAsync(), FrameMax), pool);
    }
}
