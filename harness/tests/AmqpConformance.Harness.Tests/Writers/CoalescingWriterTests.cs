using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Tests.Writers.Support;
using AmqpConformance.Harness.Writers;
using static AmqpConformance.Harness.Tests.Writers.Support.WriterTestKit;

namespace AmqpConformance.Harness.Tests.Writers;

[Trait("WriterMode", "Coalescing")]
public sealed class CoalescingWriterTests : WriterContractTests
{
    protected override IFrameWriter CreateWriter(WriterContext context, TimeSpan drainTimeout) =>
        new CoalescingWriter(context, drainTimeout: drainTimeout);

    protected override bool CompletesAfterFlush => true;

    protected override FrameWriterFactory ReferenceFactory => WriterModes.Coalescing;

    [Fact]
    public async Task Commands_queued_during_a_flush_go_out_together_with_one_flush_in_FIFO_order()
    {
        const int frameMax = 4096,
            queued = 20;
        var pool = new TrackingArrayPool();
        await using var capture = new WireCapture(pauseWriterThreshold: 1024, startPaused: true);
        var writer = (CoalescingWriter)Create(capture, pool, frameMax);

        var first = writer.WriteAsync(Publish(pool, frameMax, TestBodies.Create(0, 0, 3000))).AsTask();
        await Eventually(() => capture.Writer.Flushes == 1, "the first flush started");
        var rest = Enumerable
            .Range(1, queued)
            .Select(s => writer.WriteAsync(Publish(pool, frameMax, TestBodies.Create(0, s, 300))).AsTask())
            .ToArray();
        await Task.Delay(50);
        Assert.All(rest, t => Assert.False(t.IsCompleted, "a call completed before its bytes were flushed"));

        capture.Resume();
        Assert.Null(await Outcome(first));
        Assert.All(await Task.WhenAll(rest.Select(Outcome)), Assert.Null);
        await writer.DisposeAsync().Within();

        Assert.Equal(2, writer.FlushCount); // the first command, then the 20 queued behind it in one batch
        var wire = WireAnalysis.Of(await capture.CompleteAsync(), frameMax);
        Assert.True(wire.Violations.Count == 0, wire.ToString());
        Assert.Equal(Enumerable.Range(0, queued + 1), wire.Publishes.Select(p => TestBodies.Identify(p.Body).Sequence));
        pool.AssertClean();
    }

    [Fact]
    public async Task A_batch_is_cut_at_the_byte_limit()
    {
        const int frameMax = 4096;
        var pool = new TrackingArrayPool();
        await using var capture = new WireCapture(pauseWriterThreshold: 1024, startPaused: true);
        var writer = new CoalescingWriter(new WriterContext(capture.Writer, pool, frameMax), maxBatchBytes: 10_000);

        var first = writer.WriteAsync(Publish(pool, frameMax, TestBodies.Create(0, 0, 3000))).AsTask(); // > pause threshold: its flush blocks
        await Eventually(() => capture.Writer.Flushes == 1, "the first flush started");
        var rest = Enumerable
            .Range(1, 6)
            .Select(s => writer.WriteAsync(Publish(pool, frameMax, TestBodies.Create(0, s, 4000))).AsTask())
            .ToArray();
        await Task.Delay(50);
        capture.Resume();
        Assert.All(await Task.WhenAll(rest.Append(first).Select(Outcome)), Assert.Null);
        await writer.DisposeAsync().Within();

        // 6 x ~4.1 KB queued behind the first: a batch is cut once it reaches 10 KB, i.e. after 3 commands -> 2 more
        // flushes.
        Assert.Equal(3, writer.FlushCount);
        Assert.Equal(7, writer.CommandsWritten);
        pool.AssertClean();
    }

    [Fact]
    public void WriterModes_names_it_Coalescing_and_nothing_else()
    {
        Assert.Equal("Coalescing", WriterModes.Coalescing.Name);
        Assert.Same(WriterModes.Coalescing, WriterModes.FromName("Coalescing"));
        Assert.Same(WriterModes.Coalescing, WriterModes.FromName("coalescing"));
        // "custom" means the user's own IFrameWriter, never a reference writer.
        Assert.Null(WriterModes.FromName("custom"));
    }
}
