using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Verdicts;

public class CancellationCheckerTests
{
    private readonly CancellationChecker _checker = new();

    [Fact]
    public void Cancelled_calls_absent_from_the_wire_hold()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Call(0, [1], 0, 1);
        b.Call(1, [2], 2, 3, CallOutcome.Cancelled);
        Assert.True(_checker.Run(b.Evidence()).Holds);
    }

    [Fact]
    public void A_cancelled_call_on_the_wire_is_a_ghost()
    {
        var b = new WireLogBuilder();
        long[] seqs = b.Publish(1, 0, [1]);
        b.Call(0, [1], 0, 1, CallOutcome.Cancelled);
        var v = _checker.Run(b.Evidence()).Single("ghost-after-cancel");
        Assert.Equal(seqs, v.Frames);
    }

    [Fact]
    public void A_failed_call_on_the_wire_is_a_ghost_only_without_a_transport_fault()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Call(0, [1], 0, 1, CallOutcome.Failed, error: "InvalidOperationException: writer disposed");
        _checker.Run(b.Evidence()).Single("ghost-after-failure");
        Assert.True(
            _checker
                .Run(b.Evidence(e => e with { Fault = new TransportFaultRecord(TimeSpan.Zero, "reset", null, 0) }))
                .Holds
        );
    }

    [Fact]
    public void A_torn_command_or_frame_after_cancellation_is_caught()
    {
        var b = new WireLogBuilder();
        b.Method(1, 7);
        b.Header(1, 100);
        b.Call(0, [1], 0, 1, CallOutcome.Cancelled);
        var verdict = _checker.Run(b.Evidence(e => e with { TrailingPartialBytes = 3 }));
        verdict.Single("partial-frame");
        Assert.Equal([7], verdict.Single("partial-command").Calls);
    }

    [Fact]
    public void A_cancellation_nobody_asked_for_is_caught_unless_disposal_or_a_fault_explains_it()
    {
        var b = new WireLogBuilder();
        b.Replace(b.Call(0, [1], 0, 5, CallOutcome.Cancelled) with { CancelRequested = false });
        b.Replace(b.Call(1, [2], 1, 2, CallOutcome.Cancelled, index: 1) with { CancelRequested = true });
        b.Call(2, [3], 1, 2, CallOutcome.Cancelled, index: 2); // not followed (client level): not judged
        Assert.Equal([0], _checker.Run(b.Evidence()).Single("cancelled-unasked").Calls);

        var fault = new TransportFaultRecord(TimeSpan.Zero, "reset", null, 0);
        Assert.True(_checker.Run(b.Evidence(e => e with { Fault = fault })).Holds);
        var endedAfterDisposal = new LifecycleRecord(
            TimeSpan.FromMilliseconds(4),
            TimeSpan.FromMilliseconds(6),
            TimeSpan.FromSeconds(1),
            [],
            0,
            false
        );
        Assert.True(_checker.Run(b.Evidence(e => e with { Lifecycle = endedAfterDisposal })).Holds);
        var pendingAtDisposal = new LifecycleRecord(
            TimeSpan.FromMilliseconds(9),
            TimeSpan.FromMilliseconds(10),
            TimeSpan.FromSeconds(1),
            [0],
            0,
            false
        );
        Assert.True(_checker.Run(b.Evidence(e => e with { Lifecycle = pendingAtDisposal })).Holds);
        var disposedLater = new LifecycleRecord(
            TimeSpan.FromMilliseconds(9),
            TimeSpan.FromMilliseconds(10),
            TimeSpan.FromSeconds(1),
            [],
            0,
            false
        );
        _checker.Run(b.Evidence(e => e with { Lifecycle = disposedLater })).Single("cancelled-unasked");
    }

    [Fact]
    public void A_call_that_wrote_nothing_fails_only_with_a_cause()
    {
        var b = new WireLogBuilder();
        b.Replace(
            b.Call(
                0,
                [1],
                0,
                1,
                CallOutcome.Failed,
                error: "FrameWriterFaultedException: stopped (OperationCanceledException)"
            ) with
            {
                CancelRequested = true,
            }
        );
        b.Replace(
            b.Call(1, [2], 2, 3, CallOutcome.Failed, index: 1, error: "FrameWriterFaultedException: stopped") with
            {
                CancelRequested = false,
            }
        );
        b.Replace(b.Call(2, [3], 4, 5, CallOutcome.Cancelled, index: 2) with { CancelRequested = true });
        var verdict = _checker.Run(b.Evidence());
        Assert.Equal([0], verdict.Single("cancel-reported-as-failure").Calls);
        Assert.Equal([1], verdict.Single("failed-without-cause").Calls);

        // A transport fault, or disposal, explains a failure.
        Assert.True(
            _checker
                .Run(b.Evidence(e => e with { Fault = new TransportFaultRecord(TimeSpan.Zero, "reset", null, 0) }))
                .Holds
        );
        var disposedFirst = new LifecycleRecord(
            TimeSpan.FromMilliseconds(0.5),
            TimeSpan.FromMilliseconds(6),
            TimeSpan.FromSeconds(1),
            [],
            0,
            false
        );
        Assert.True(_checker.Run(b.Evidence(e => e with { Lifecycle = disposedFirst })).Holds);
    }
}
