using System.Diagnostics;
using System.IO.Pipelines;
using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>CancelPendingFlush on the harness's output acts as it does on a pipe, even while the harness holds flushes:
/// a cancel that meets no flush ends the next one, once; a cancel of a held flush leaves later flushes alone. A writer
/// whose disposal gives up while its thread is between writing and flushing (the reference Inline writer's) relies on
/// the first: without it, that writer is blamed for a flush still pending after its disposal, a flush a pipe would
/// have ended at once.</summary>
public sealed class ControlledOutputCancelTests
{
    private static ControlledOutput NewOutput(out Pipe pipe)
    {
        pipe = new Pipe(new PipeOptions(pauseWriterThreshold: 0, useSynchronizationContext: false));
        return new ControlledOutput(pipe.Writer, () => TimeSpan.Zero, 4096, noiseSeed: null);
    }

    private static void Commit(PipeWriter output, int bytes)
    {
        output.GetMemory(bytes).Span[..bytes].Fill(0xCE);
        output.Advance(bytes);
    }

    [Fact]
    public async Task A_cancel_that_met_no_flush_ends_the_next_one_as_a_pipes_does()
    {
        var pipe = new Pipe(new PipeOptions(pauseWriterThreshold: 0, useSynchronizationContext: false));
        pipe.Writer.CancelPendingFlush();
        Commit(pipe.Writer, 10);
        Assert.True(
            (await pipe.Writer.FlushAsync()).IsCanceled,
            "the pipe itself: the kept cancel ends the next flush"
        );

        var output = NewOutput(out _);
        output.Hold(); // a stalled output: a flush not asked to end would wait here
        output.CancelPendingFlush();
        Commit(output, 10);
        ValueTask<FlushResult> flush = output.FlushAsync();
        Assert.True(flush.IsCompleted, "a cancel kept for the next flush ended it at once, not after the hold");
        Assert.True((await flush).IsCanceled);
        output.MarkDisposeReturned();
        Assert.False(output.FlushPendingAtDispose);
    }

    [Fact]
    public async Task A_kept_cancel_ends_one_flush_only()
    {
        var output = NewOutput(out _);
        output.CancelPendingFlush();
        Commit(output, 10);
        Assert.True((await output.FlushAsync()).IsCanceled);
        output.Hold();
        Commit(output, 10);
        ValueTask<FlushResult> second = output.FlushAsync();
        Assert.False(second.IsCompleted, "the second flush waits for the hold: the cancel was used up");
        output.Release();
        Assert.False((await second).IsCanceled);
    }

    [Fact]
    public async Task A_cancel_of_a_held_flush_does_not_cancel_a_later_flush()
    {
        var output = NewOutput(out _);
        output.Hold();
        Commit(output, 10);
        ValueTask<FlushResult> held = output.FlushAsync();
        Assert.False(held.IsCompleted);
        output.CancelPendingFlush();
        Assert.True((await held).IsCanceled);
        output.Release();
        Commit(output, 10);
        Assert.False(
            (await output.FlushAsync()).IsCanceled,
            "the cancel was the held flush's; the inner pipe must not keep it"
        );
    }

    [Fact]
    public async Task A_flush_still_held_when_disposal_returned_is_reported()
    {
        var output = NewOutput(out _);
        output.Hold();
        Commit(output, 10);
        ValueTask<FlushResult> held = output.FlushAsync();
        long before = Stopwatch.GetTimestamp();
        output.MarkDisposeReturned();
        long after = Stopwatch.GetTimestamp();
        Assert.True(output.FlushPendingAtDispose);
        Assert.InRange(output.HeldLastAtDispose!.Value, before, after);
        output.Release();
        await held;
        Assert.InRange(output.HeldLastAtDispose!.Value, before, after); // noted when disposal returned, not now
    }

    [Fact]
    public void An_output_released_before_disposal_returned_was_last_held_when_it_was_released()
    {
        var output = NewOutput(out _);
        output.Hold();
        output.Pulse();
        Assert.True(output.IsHolding, "a pulse goes on holding");
        long before = Stopwatch.GetTimestamp();
        output.Release();
        long after = Stopwatch.GetTimestamp();
        output.Release(); // releasing an output not held does not move the moment
        output.MarkDisposeReturned();
        Assert.InRange(output.HeldLastAtDispose!.Value, before, after);
    }

    [Fact]
    public void An_output_never_held_has_no_last_hold()
    {
        var output = NewOutput(out _);
        output.Release();
        output.MarkDisposeReturned();
        Assert.Null(output.HeldLastAtDispose);
    }

    [Fact]
    public async Task A_cancel_after_a_flush_completed_but_before_the_writer_resumed_ends_the_next_flush()
    {
        // The window a loaded machine opened: the flush's result is decided (it went through), the writer has not yet
        // resumed, and its disposal gives up (CancelPendingFlush). As with a pipe, that cancel must end the writer's
        // next flush; CI saw it lost, and a writer flushing frame by frame then waited at the hold and wrote after its
        // disposal returned.
        var output = NewOutput(out _);
        output.FlushDecided = () =>
        {
            output.FlushDecided = null;
            output.CancelPendingFlush();
        };
        Commit(output, 10);
        Assert.False((await output.FlushAsync()).IsCanceled, "the first flush went through before the cancel");
        output.Hold(); // a stalled output: a flush not asked to end would wait here
        Commit(output, 10);
        ValueTask<FlushResult> next = output.FlushAsync();
        Assert.True(next.IsCompleted, "the kept cancel ended the next flush at once, not after the hold");
        Assert.True((await next).IsCanceled);
        output.MarkDisposeReturned();
        Assert.False(output.FlushPendingAtDispose);
    }
}
