using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Tests.Writers.Support;
using AmqpConformance.Harness.Writers;
using static AmqpConformance.Harness.Tests.Writers.Support.WriterTestKit;

namespace AmqpConformance.Harness.Tests.Writers;

[Trait("WriterMode", "Inline")]
public sealed class InlineSemaphoreWriterTests : WriterContractTests
{
    protected override IFrameWriter CreateWriter(WriterContext context, TimeSpan drainTimeout) =>
        new InlineSemaphoreWriter(context, drainTimeout);

    protected override bool CompletesAfterFlush => true;

    protected override FrameWriterFactory ReferenceFactory => WriterModes.Inline;

    [Fact]
    public async Task A_call_completes_only_after_its_flush()
    {
        const int frameMax = 4096;
        var pool = new TrackingArrayPool();
        await using var capture = new WireCapture(pauseWriterThreshold: 1024, startPaused: true);
        await using var writer = Create(capture, pool, frameMax);

        var call = writer.WriteAsync(Publish(pool, frameMax, TestBodies.Create(0, 0, 5000))).AsTask();
        await Eventually(() => capture.Writer.Flushes == 1, "the flush started");
        await Task.Delay(100);
        Assert.False(call.IsCompleted, "the call completed while its flush was still blocked");

        capture.Resume();
        Assert.Null(await Outcome(call));
    }

    [Fact]
    public async Task The_body_is_never_copied()
    {
        const int frameMax = 4096;
        var pool = new TrackingArrayPool();
        await using var capture = new WireCapture();
        var writer = Create(capture, pool, frameMax);
        for (int s = 0; s < 5; s++)
            await writer.WriteAsync(Publish(pool, frameMax, TestBodies.Create(0, s, 20_000))).Within();
        await writer.DisposeAsync().Within();

        Assert.Equal(5, pool.Rents); // the frame buffers only
        Assert.Equal(5, ((InlineSemaphoreWriter)writer).FlushCount);
        pool.AssertClean();
    }

    [Fact]
    public void WriterModes_names_it_Inline()
    {
        Assert.Equal("Inline", WriterModes.Inline.Name);
        Assert.Same(WriterModes.Inline, WriterModes.FromName("INLINE"));
        Assert.Null(WriterModes.FromName("no-such-writer"));
    }
}
