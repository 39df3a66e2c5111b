using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Verdicts;

public class LifecycleCheckerTests
{
    private static TimeSpan Ms(double ms) => TimeSpan.FromMilliseconds(ms);

    private readonly LifecycleChecker _checker = new();

    private static LifecycleRecord Disposed(
        double invokedMs,
        double? returnedMs,
        IReadOnlyList<int>? pending = null,
        long bytesAfter = 0,
        bool stalled = false
    ) =>
        new(
            Ms(invokedMs),
            returnedMs is { } r ? Ms(r) : null,
            TimeSpan.FromSeconds(1),
            pending ?? [],
            bytesAfter,
            stalled
        );

    [Fact]
    public void A_clean_disposal_holds_and_no_disposal_holds_trivially()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Call(0, [1], 0, 1);
        b.Call(1, [2], 6, 6.5, CallOutcome.Failed, error: "ObjectDisposedException: disposed");
        Assert.True(_checker.Run(b.Evidence(e => e with { Lifecycle = Disposed(5, 8, pending: [0]) })).Holds);
        Assert.True(_checker.Run(b.Evidence()).Holds);
    }

    [Fact]
    public void A_writer_that_completed_its_output_is_caught_disposed_or_not()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Call(0, [1], 0, 1);
        var completed = Disposed(5, 8) with { OutputCompletedByWriterAt = Ms(7.5) };
        Assert.Contains(
            "7.5 ms",
            _checker
                .Run(b.Evidence(e => e with { Lifecycle = completed }))
                .Single("output-completed-by-writer")
                .Message,
            StringComparison.Ordinal
        );
        var notDisposed = new LifecycleRecord(null, null, TimeSpan.FromSeconds(1), [], 0, false)
        {
            OutputCompletedByWriterAt = Ms(2),
        };
        _checker.Run(b.Evidence(e => e with { Lifecycle = notDisposed })).Single("output-completed-by-writer");
    }

    [Fact]
    public void A_hung_disposal_a_stranded_call_and_bytes_after_disposal_are_caught()
    {
        var b = new WireLogBuilder();
        b.Call(0, [1], 0, null, CallOutcome.Pending);
        var verdict = _checker.Run(
            b.Evidence(e => e with { Lifecycle = Disposed(5, null, pending: [0], bytesAfter: 17, stalled: true) })
        );
        Assert.Contains("accepted nothing", verdict.Single("dispose-hung").Message, StringComparison.Ordinal);
        Assert.Equal([0], verdict.Single("stranded-by-dispose").Calls);
        Assert.Contains("17 bytes", verdict.Single("write-after-dispose").Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Calls_after_disposal_returned_must_fail_and_calls_during_it_must_go_out_if_they_succeed()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 1, [2]);
        b.Call(0, [1], 6, 6.1); // during disposal (5..8 ms), succeeded, not on the wire
        b.Call(1, [2], 6.2, 6.3); // during disposal, succeeded, on the wire: a drain
        b.Call(2, [3], 9, 9.1); // after disposal returned, succeeded
        var verdict = _checker.Run(b.Evidence(e => e with { Lifecycle = Disposed(5, 8) }));
        Assert.Equal([0], verdict.Single("accepted-during-dispose-and-dropped").Calls);
        Assert.Equal([2], verdict.Single("succeeded-after-dispose").Calls);
        Assert.Equal(2, verdict.Violations.Count);
    }

    [Fact]
    public void A_flush_left_pending_or_started_after_disposal_returned_is_caught_but_not_after_a_hung_disposal()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Call(0, [1], 0, 9);
        var verdict = _checker.Run(
            b.Evidence(e =>
                e with
                {
                    Lifecycle = Disposed(5, 8) with { FlushPendingWhenDisposeReturned = true, FlushesAfterDispose = 2 },
                }
            )
        );
        Assert.Contains(
            "had not cancelled",
            verdict.Single("flush-pending-after-dispose").Message,
            StringComparison.Ordinal
        );
        Assert.Contains("2 time(s)", verdict.Single("flush-after-dispose").Message, StringComparison.Ordinal);
        Assert.Equal(2, verdict.Violations.Count);
        // A disposal that never returned within its bound is dispose-hung; what happened "after" it is not judged
        // twice.
        var hung = _checker.Run(
            b.Evidence(e =>
                e with
                {
                    Lifecycle = Disposed(5, null) with
                    {
                        FlushPendingWhenDisposeReturned = true,
                        FlushesAfterDispose = 1,
                    },
                }
            )
        );
        Assert.Equal(["dispose-hung"], hung.Violations.Select(v => v.Rule));
    }

    [Fact]
    public void A_second_disposal_that_throws_is_caught_and_one_that_returns_holds()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Call(0, [1], 0, 1);
        var failed = _checker.Run(
            b.Evidence(e =>
                e with
                {
                    Lifecycle = Disposed(5, 8) with
                    {
                        SecondDisposal = "after the first returned",
                        SecondDisposalFailure = "ObjectDisposedException: gone",
                    },
                }
            )
        );
        var violation = failed.Single("second-dispose-failed");
        Assert.Contains("after the first returned", violation.Message, StringComparison.Ordinal);
        Assert.Contains("ObjectDisposedException: gone", violation.Message, StringComparison.Ordinal);
        Assert.True(
            _checker
                .Run(
                    b.Evidence(e =>
                        e with
                        {
                            Lifecycle = Disposed(5, 8) with { SecondDisposal = "alongside the first" },
                        }
                    )
                )
                .Holds
        );
    }

    [Fact]
    public void A_first_disposal_that_throws_is_caught_and_its_message_reads_as_one_sentence()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Call(0, [1], 0, 1);
        var failed = _checker.Run(
            b.Evidence(e =>
                e with
                {
                    Lifecycle = Disposed(5, 8) with
                    {
                        FirstDisposalFailure = "TransportResetException: the transport was reset (Upstream).",
                    },
                }
            )
        );
        var message = failed.Single("dispose-threw").Message;
        Assert.Contains(
            "threw TransportResetException: the transport was reset (Upstream). A connection's close path",
            message,
            StringComparison.Ordinal
        );
        Assert.DoesNotContain("..", message, StringComparison.Ordinal);
    }
}
