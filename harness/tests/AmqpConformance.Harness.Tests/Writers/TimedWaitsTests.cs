using AmqpConformance.Harness.Writers;
using Microsoft.Extensions.Time.Testing;

namespace AmqpConformance.Harness.Tests.Writers;

/// <summary>A bounded semaphore wait on a <see cref="TimeProvider"/> times out when that clock passes the bound, not
/// real time.</summary>
public sealed class TimedWaitsTests
{
    [Fact]
    public async Task The_wait_gives_up_when_the_given_clock_passes_the_timeout()
    {
        var time = new FakeTimeProvider();
        using var gate = new SemaphoreSlim(0, 1);
        var wait = gate.WaitAsync(TimeSpan.FromMinutes(5), time);
        time.Advance(TimeSpan.FromMinutes(4));
        Assert.False(wait.IsCompleted);
        time.Advance(TimeSpan.FromMinutes(1));
        Assert.False(await wait.WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Equal(0, gate.CurrentCount);
    }

    [Fact]
    public async Task The_wait_enters_when_the_gate_is_released_before_the_timeout()
    {
        var time = new FakeTimeProvider();
        using var gate = new SemaphoreSlim(0, 1);
        var wait = gate.WaitAsync(TimeSpan.FromMinutes(5), time);
        gate.Release();
        Assert.True(await wait.WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Equal(0, gate.CurrentCount);
        Assert.True(await gate.WaitAsync(TimeSpan.Zero, time) is false);
        gate.Release();
        Assert.True(await gate.WaitAsync(TimeSpan.Zero, time));
    }

    [Fact]
    public async Task The_reference_writers_drain_timeout_runs_on_the_contexts_clock()
    {
        // A writer whose output never accepts a byte: its disposal can only end by giving up after the drain timeout.
        var time = new FakeTimeProvider();
        var pipe = new System.IO.Pipelines.Pipe(
            new System.IO.Pipelines.PipeOptions(pauseWriterThreshold: 1, resumeWriterThreshold: 1)
        );
        var context = new WriterContext(pipe.Writer, System.Buffers.ArrayPool<byte>.Shared, 4096)
        {
            DrainTimeout = TimeSpan.FromHours(1),
            TimeProvider = time,
        };
        var writer = new InlineSemaphoreWriter(context);
        var call = writer
            .WriteAsync(
                Support.WriterTestKit.Publish(context.Pool, context.FrameMax, new byte[100]),
                CancellationToken.None
            )
            .AsTask();
        var disposal = writer.DisposeAsync().AsTask();
        Assert.False(disposal.IsCompleted);
        time.Advance(TimeSpan.FromHours(1));
        await disposal.WaitAsync(TimeSpan.FromSeconds(30));
        Assert.NotNull(await Support.WriterTestKit.Outcome(call)); // the call in progress failed when the writer gave up
    }
}
