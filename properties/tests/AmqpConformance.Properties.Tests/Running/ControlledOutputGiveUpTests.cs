using System.IO.Pipelines;
using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>When a writer gives up on its output (CancelPendingFlush), the harness counts that as giving up on the
/// output: with a pending flush, with bytes committed and not flushed, and with nothing pending (a write in progress or
/// a loop between commands).</summary>
public sealed class ControlledOutputGiveUpTests
{
    private static ControlledOutput NewOutput(out Pipe pipe)
    {
        pipe = new Pipe();
        return new ControlledOutput(pipe.Writer, () => TimeSpan.FromMilliseconds(7), 4096, noiseSeed: null);
    }

    private static void Commit(ControlledOutput output, int bytes)
    {
        output.GetMemory(bytes).Span[..bytes].Fill(0xCE);
        output.Advance(bytes);
    }

    [Fact]
    public void A_give_up_that_met_nothing_pending_counts_at_once()
    {
        // A loop between two commands that now drops what it accepted, or a write in progress about to commit: both are
        // given up.
        var output = NewOutput(out _);
        output.CancelPendingFlush();
        Assert.Equal(TimeSpan.FromMilliseconds(7), output.FlushCancelledAt);
    }

    [Fact]
    public void A_give_up_with_bytes_unflushed_counts_at_once_and_committing_alone_never_does()
    {
        var output = NewOutput(out _);
        Commit(output, 10);
        Assert.Null(output.FlushCancelledAt);
        output.CancelPendingFlush();
        Assert.Equal(TimeSpan.FromMilliseconds(7), output.FlushCancelledAt);
    }

    [Fact]
    public async Task Writing_and_flushing_without_a_give_up_leaves_nothing_given_up()
    {
        var output = NewOutput(out var pipe);
        Commit(output, 10);
        await output.FlushAsync();
        Commit(output, 10);
        Assert.Null(output.FlushCancelledAt);
        pipe.Reader.Complete();
    }
}
