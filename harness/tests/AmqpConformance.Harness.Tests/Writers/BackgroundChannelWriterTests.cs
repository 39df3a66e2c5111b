using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Tests.Writers.Support;
using AmqpConformance.Harness.Writers;
using static AmqpConformance.Harness.Tests.Writers.Support.WriterTestKit;

namespace AmqpConformance.Harness.Tests.Writers;

[Trait("WriterMode", "Background")]
public sealed class BackgroundChannelWriterTests : WriterContractTests
{
    protected override IFrameWriter CreateWriter(WriterContext context, TimeSpan drainTimeout) =>
        new BackgroundChannelWriter(context, drainTimeout);

    protected override bool CompletesAfterFlush => false;

    protected override FrameWriterFactory ReferenceFactory => WriterModes.Background;

    [Fact]
    public async Task Calls_complete_on_enqueue_until_the_queue_is_full()
    {
        const int frameMax = 4096;
        var pool = new TrackingArrayPool();
        await using var capture = new WireCapture(pauseWriterThreshold: 1024, startPaused: true);
        await using var writer = Create(capture, pool, frameMax, queueCapacity: 3);

        // One command is taken by the loop (stuck in its flush), three fill the queue: all four calls complete.
        for (int s = 0; s < 4; s++)
        {
            var call = writer.WriteAsync(Publish(pool, frameMax, TestBodies.Create(0, s, 2000)));
            await call.AsTask().WaitAsync(TestTimeout);
            if (s == 0)
                await Eventually(() => capture.Writer.Flushes == 1, "the loop is stuck in its first flush");
        }
        var blocked = writer.WriteAsync(Publish(pool, frameMax, TestBodies.Create(0, 4, 2000))).AsTask();
        await Task.Delay(100);
        Assert.False(blocked.IsCompleted, "the fifth call should wait for queue space while the output is stalled");

        capture.Resume();
        Assert.Null(await Outcome(blocked));
    }

    [Fact]
    public async Task The_body_is_copied_into_the_pool_unless_an_owner_comes_with_it()
    {
        const int frameMax = 4096;
        var pool = new TrackingArrayPool();
        await using var capture = new WireCapture();
        var writer = Create(capture, pool, frameMax);

        await writer.WriteAsync(Publish(pool, frameMax, TestBodies.Create(0, 0, 5000))).Within();
        await writer.WriteAsync(Publish(pool, frameMax, TestBodies.Create(0, 1, 5000), new OwnerProbe())).Within();
        await writer.DisposeAsync().Within();

        // 2 frame buffers + 1 body copy (the owned body is not copied).
        Assert.Equal(3, pool.Rents);
        Assert.Equal(2, ((BackgroundChannelWriter)writer).FlushCount);
        pool.AssertClean();
    }

    [Fact]
    public void WriterModes_names_it_Background()
    {
        Assert.Equal("Background", WriterModes.Background.Name);
        Assert.Same(WriterModes.Background, WriterModes.FromName("background"));
    }
}
