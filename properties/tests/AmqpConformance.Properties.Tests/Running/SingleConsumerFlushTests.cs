using System.IO.Pipelines;
using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties.Tests.Running;

public sealed class SingleConsumerFlushTests
{
    [Fact]
    public async Task A_pending_flush_awaited_once_gives_its_result()
    {
        var inner = new TaskCompletionSource<FlushResult>(TaskCreationOptions.RunContinuationsAsynchronously);
        var flush = SingleConsumerFlush.Wrap(new ValueTask<FlushResult>(inner.Task));
        Assert.False(flush.IsCompleted);
        inner.SetResult(new FlushResult(isCanceled: false, isCompleted: true));
        Assert.True((await flush).IsCompleted);
    }

    [Fact]
    public async Task A_pending_flush_awaited_twice_breaks_for_both_consumers_as_a_pipes_would()
    {
        var inner = new TaskCompletionSource<FlushResult>(TaskCreationOptions.RunContinuationsAsynchronously);
        var flush = SingleConsumerFlush.Wrap(new ValueTask<FlushResult>(inner.Task));
        var first = flush.AsTask();
        var second = Assert.Throws<InvalidOperationException>(() =>
        {
            _ = flush.AsTask();
        });
        Assert.Contains("more than once", second.Message, StringComparison.Ordinal);
        inner.SetResult(default);
        await Assert.ThrowsAsync<InvalidOperationException>(() => first);
    }

    [Fact]
    public async Task A_completed_flush_whose_result_is_taken_twice_throws_the_second_time()
    {
        var inner = new TaskCompletionSource<FlushResult>(TaskCreationOptions.RunContinuationsAsynchronously);
        var flush = SingleConsumerFlush.Wrap(new ValueTask<FlushResult>(inner.Task));
        inner.SetResult(default);
        await flush;
        await Assert.ThrowsAsync<InvalidOperationException>(async () => await flush);
    }

    [Fact]
    public async Task A_failed_flush_passes_its_exception_to_its_consumer()
    {
        var inner = new TaskCompletionSource<FlushResult>(TaskCreationOptions.RunContinuationsAsynchronously);
        var flush = SingleConsumerFlush.Wrap(new ValueTask<FlushResult>(inner.Task));
        inner.SetException(new IOException("reset"));
        Assert.Equal("reset", (await Assert.ThrowsAsync<IOException>(async () => await flush)).Message);
    }
}
