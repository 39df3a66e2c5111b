using System.Diagnostics;
using System.IO.Pipelines;
using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Writers;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Suites.Tests.SelfTest;

/// <summary>
/// The correct queued zoo writers' disposal when it gives up draining while the loop is in the middle of a write: it
/// must not return before the loop has stopped, or the loop's bytes land after disposal returned. CI (loaded with
/// stress-ng) saw PooledCompletion and BoundedBatching blamed for <c>lifecycle/write-after-dispose</c>: after giving up
/// they waited for the loop only the 25 ms drain timeout of a stalled case, not <see cref="WriterContext.GiveUpWait"/>.
/// </summary>
[Trait("Category", "SelfTest")]
public sealed class QueuedWriterDisposeTests
{
    [Theory]
    [InlineData("PooledCompletion")]
    [InlineData("BoundedBatching")]
    public async Task Disposal_that_gave_up_waits_for_the_loop_to_finish_its_write(string name)
    {
        var output = new HeldWriteOutput();
        var pool = new TrackingArrayPool();
        var writer = ZooWriters
            .FromName(name)!
            .Factory.CreateWriter(
                new WriterContext(output, pool, 4096) { DrainTimeout = TimeSpan.FromMilliseconds(25) }
            );
        byte[] frames = pool.Rent(8);
        frames.AsSpan(0, 8).Fill(1);
        output.HoldNextWrite();
        var call = writer.WriteAsync(new OutgoingCommand(1, frames, 8, hasContent: false)).AsTask();
        await output.WriteHeld.WaitAsync(TimeSpan.FromSeconds(30)); // the loop is inside its write

        var disposal = writer.DisposeAsync().AsTask();
        await output.FlushCancelled.WaitAsync(TimeSpan.FromSeconds(30)); // disposal gave up draining
        // Within GiveUpWait (1 s) of the cancel, a disposal that waits for the loop cannot have returned; one that does
        // not wait has, some 25 ms after it. Looked at 200 ms after the cancel; a look that a loaded machine delays
        // past 900 ms proves nothing either way and asserts nothing.
        var sinceCancel = Stopwatch.GetElapsedTime(output.CancelledAt);
        if (sinceCancel < TimeSpan.FromMilliseconds(200))
            await Task.WhenAny(disposal, Task.Delay(TimeSpan.FromMilliseconds(200) - sinceCancel));
        bool returnedDuringWrite = disposal.IsCompleted;
        bool judged = Stopwatch.GetElapsedTime(output.CancelledAt) < TimeSpan.FromMilliseconds(900);
        output.ReleaseWrite();
        await disposal.WaitAsync(TimeSpan.FromSeconds(30));
        await Task.WhenAny(call, Task.Delay(TimeSpan.FromSeconds(30)));

        if (judged)
            Assert.False(
                returnedDuringWrite,
                "DisposeAsync returned while the writer's loop was still writing to the output"
            );
    }

    /// <summary>An output whose next write blocks its thread until released (a loop the machine keeps off the CPU), and
    /// which says when a pending flush was cancelled.</summary>
    private sealed class HeldWriteOutput : PipeWriter
    {
        private readonly Pipe _pipe = new(new PipeOptions(pauseWriterThreshold: 0, useSynchronizationContext: false));
        private readonly ManualResetEventSlim _release = new(false);
        private readonly TaskCompletionSource _held = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly TaskCompletionSource _cancelled = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _hold;

        public Task WriteHeld => _held.Task;

        public Task FlushCancelled => _cancelled.Task;

        public void HoldNextWrite() => Volatile.Write(ref _hold, 1);

        public void ReleaseWrite() => _release.Set();

        public override void Advance(int bytes)
        {
            if (Interlocked.Exchange(ref _hold, 0) == 1)
            {
                _held.TrySetResult();
                _release.Wait(TimeSpan.FromSeconds(30));
            }
            _pipe.Writer.Advance(bytes);
        }

        public override Memory<byte> GetMemory(int sizeHint = 0) => _pipe.Writer.GetMemory(sizeHint);

        public override Span<byte> GetSpan(int sizeHint = 0) => _pipe.Writer.GetSpan(sizeHint);

        public override ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default) =>
            _pipe.Writer.FlushAsync(cancellationToken);

        /// <summary>When <see cref="CancelPendingFlush"/> was first called (a <see cref="Stopwatch"/>
        /// timestamp).</summary>
        public long CancelledAt { get; private set; }

        public override void CancelPendingFlush()
        {
            if (!_cancelled.Task.IsCompleted)
                CancelledAt = Stopwatch.GetTimestamp();
            _cancelled.TrySetResult();
            _pipe.Writer.CancelPendingFlush();
        }

        public override void Complete(Exception? exception = null) => _pipe.Writer.Complete(exception);
    }
}
