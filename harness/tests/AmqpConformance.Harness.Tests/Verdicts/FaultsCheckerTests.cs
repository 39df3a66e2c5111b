using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Harness.Tests.Verdicts;

public class FaultsCheckerTests
{
    private readonly FaultsChecker _checker = new();
    private static readonly TransportFaultRecord Reset = new(
        TimeSpan.FromMilliseconds(10),
        "reset after 100 bytes",
        TimeSpan.FromMilliseconds(11),
        0
    );

    [Fact]
    public void Prompt_clear_failures_after_a_fault_hold()
    {
        var b = new WireLogBuilder();
        b.Call(0, [1], 0, 1);
        b.Call(1, [1], 9, 12, CallOutcome.Failed, error: "IOException: connection reset");
        b.Call(2, [1], 20, 20.5, CallOutcome.Failed, error: "ObjectDisposedException: writer faulted");
        Assert.True(_checker.Run(b.Evidence(e => e with { Fault = Reset })).Holds);
    }

    [Fact]
    public void A_call_after_the_fault_that_ends_as_a_cancellation_nobody_asked_for_is_caught()
    {
        // Fault seen at 11 ms. Call 0 came before it, call 1 after it asked for its cancellation, call 3 ended in
        // disposal.
        var b = new WireLogBuilder();
        b.Replace(b.Call(0, [1], 5, 12, CallOutcome.Cancelled) with { CancelRequested = false });
        b.Replace(b.Call(1, [2], 12, 13, CallOutcome.Cancelled, index: 1) with { CancelRequested = true });
        b.Replace(
            b.Call(2, [3], 14, 15, CallOutcome.Cancelled, index: 2) with
            {
                CancelRequested = false,
                Error = "OperationCanceledException: stopped",
            }
        );
        var verdict = _checker.Run(b.Evidence(e => e with { Fault = Reset }));
        Assert.Equal([2], verdict.Single("cancelled-after-fault").Calls);
        Assert.Contains(
            "OperationCanceledException: stopped",
            verdict.Single("cancelled-after-fault").Message,
            StringComparison.Ordinal
        );

        var disposedFirst = new LifecycleRecord(
            TimeSpan.FromMilliseconds(14.5),
            TimeSpan.FromMilliseconds(16),
            TimeSpan.FromSeconds(1),
            [],
            0,
            false
        );
        Assert.True(_checker.Run(b.Evidence(e => e with { Fault = Reset, Lifecycle = disposedFirst })).Holds);
    }

    [Fact]
    public void A_call_whose_WriteAsync_blocked_its_caller_is_caught()
    {
        foreach (bool blocked in new[] { true, false })
        {
            var b = new WireLogBuilder();
            b.Call(0, [1], 0, 1);
            b.Replace(
                b.Call(1, [2], 0, 5_000, CallOutcome.Cancelled, index: 1) with
                {
                    CancelRequested = true,
                    BlockedCaller = blocked,
                }
            );
            var verdict = _checker.Run(b.Evidence());
            if (blocked)
                Assert.Equal([1], verdict.Single("blocked-caller").Calls);
            else
                Assert.True(verdict.Holds, verdict.ToString());
        }
    }

    [Fact]
    public void Bytes_after_the_fault_and_success_after_the_grace_period_are_caught()
    {
        var b = new WireLogBuilder();
        b.Call(0, [1], 1_100, 1_101); // fault seen at 11 ms; the grace period is 1 s
        var verdict = _checker.Run(b.Evidence(e => e with { Fault = Reset with { BytesWrittenAfterFault = 42 } }));
        Assert.Contains("42", verdict.Single("bytes-after-fault").Message, StringComparison.Ordinal);
        Assert.Equal([0], verdict.Single("succeeded-after-fault").Calls);
    }

    [Fact]
    public void A_success_past_the_grace_on_the_case_clock_is_blamed_only_if_the_writer_also_had_the_real_time_grace()
    {
        // Fault seen at 11 ms; the call starts 120 s later on the case's clock, which the harness skipped.
        foreach (
            var (real, blamed) in new (TimeSpan?, bool)[]
            {
                (TimeSpan.FromMilliseconds(3), false), // a moment of real time: the writer's own thread may not have run yet
                (TimeSpan.FromMilliseconds(100), true), // the whole real-time grace: a writer that accepts it accepts for ever
                (null, true), // not measured (the client level): the case's clock judges alone
            }
        )
        {
            var b = new WireLogBuilder();
            b.Replace(b.Call(0, [1], 120_011, 120_012) with { RunnableAfterFaultSeen = real });
            var verdict = _checker.Run(b.Evidence(e => e with { Fault = Reset }));
            Assert.True(blamed != verdict.Holds, $"real time {real}: {verdict}");
            if (blamed && real is { } r)
                Assert.Contains(
                    $"{r.TotalMilliseconds:0} ms of it in real time",
                    verdict.Single("succeeded-after-fault").Message,
                    StringComparison.Ordinal
                );
        }
    }

    [Fact]
    public void A_call_racing_the_fault_within_the_grace_period_may_still_succeed()
    {
        var b = new WireLogBuilder();
        b.Call(0, [1], 11.5, 11.6); // fault seen at 11 ms; 0.5 ms later is inside the grace period
        Assert.True(_checker.Run(b.Evidence(e => e with { Fault = Reset })).Holds);
        Assert.False(
            new FaultsChecker { Grace = TimeSpan.Zero }
                .Run(b.Evidence(e => e with { Fault = Reset }))
                .Holds
        );
    }

    [Fact]
    public void Once_a_call_failed_because_of_the_fault_no_later_call_may_succeed()
    {
        var b = new WireLogBuilder();
        b.Call(0, [1], 12, 13, CallOutcome.Failed, error: "IOException: connection reset");
        b.Call(1, [1], 14, 15); // well inside the grace period, but after call 0 failed
        var verdict = _checker.Run(b.Evidence(e => e with { Fault = Reset }));
        Assert.Equal([0, 1], verdict.Single("succeeded-after-failure").Calls);
    }

    [Fact]
    public void Hangs_and_unclear_exceptions_are_caught_with_or_without_a_fault()
    {
        var b = new WireLogBuilder();
        b.Call(0, [1], 0, null, CallOutcome.Pending);
        b.Call(1, [1], 0, 1, CallOutcome.Failed, error: "System.NullReferenceException: Object reference not set");
        var verdict = _checker.Run(b.Evidence());
        Assert.Equal([0], verdict.Single("call-hung").Calls);
        Assert.Equal([1], verdict.Single("unclear-exception").Calls);
    }

    [Fact]
    public void Leaks_after_a_fault_are_reported_as_buffers_not_coming_back()
    {
        var b = new WireLogBuilder();
        var verdict = _checker.Run(
            b.Evidence(e =>
                e with
                {
                    Fault = Reset,
                    Pool = PoolLedgers.With(
                        2,
                        1,
                        PoolLedgers.Finding(AmqpConformance.Harness.Pooling.PoolFindingKind.Leak, "array #2")
                    ),
                }
            )
        );
        verdict.Single("buffers-not-returned-after-fault");
    }

    // succeeded-but-not-delivered: judged only when the factory declares AfterFlush and the harness followed the
    // writer's output.

    private static ConformanceEvidence Declared(ConformanceEvidence e, WriterCompletion completion) =>
        e with
        {
            DeclaredCompletion = completion,
            OutputDeliveryTracked = true,
        };

    [Fact]
    public void A_success_whose_flush_failed_is_caught_for_an_after_flush_writer_even_with_a_fault()
    {
        // A writer that reports success for the call whose flush failed (Zoo:SucceedsOnFailedFlush): call 1's bytes
        // (output 100..200) went in, its flush threw (the reset), and it reported success.
        var b = new WireLogBuilder();
        b.Replace(b.Call(0, [1], 0, 1) with { OutputEndByte = 100, DeliveredOutputBytesAtCompletion = 100 });
        b.Replace(b.Call(1, [1], 9, 12) with { OutputEndByte = 200, DeliveredOutputBytesAtCompletion = 100 });
        var evidence = b.Evidence(e => e with { Fault = Reset });

        var verdict = _checker.Run(Declared(evidence, WriterCompletion.AfterFlush));
        var violation = verdict.Single("succeeded-but-not-delivered");
        Assert.Equal([1], violation.Calls);
        Assert.Contains("reset after 100 bytes", violation.Message, StringComparison.Ordinal);
        // A writer that completes on accept, or says nothing, may lose an accepted command when the connection dies.
        Assert.True(_checker.Run(Declared(evidence, WriterCompletion.OnAccept)).Holds);
        Assert.True(_checker.Run(Declared(evidence, WriterCompletion.Unspecified)).Holds);
    }

    [Fact]
    public void A_success_whose_command_never_went_whole_into_the_output_is_caught_for_an_after_flush_writer()
    {
        var b = new WireLogBuilder();
        b.Replace(b.Call(0, [1], 0, 1) with { OutputEndByte = null, DeliveredOutputBytesAtCompletion = 0 });
        var verdict = _checker.Run(Declared(b.Evidence(e => e with { Fault = Reset }), WriterCompletion.AfterFlush));
        Assert.Contains(
            "never went into the output",
            verdict.Single("succeeded-but-not-delivered").Message,
            StringComparison.Ordinal
        );
    }

    [Fact]
    public void Bytes_a_successful_flush_delivered_and_the_transport_then_lost_are_not_the_writers_fault()
    {
        // Neither call is on the wire (the reset lost both downstream), but successful flushes had handed both on before they completed;
        // call 2 failed and was never delivered, which is what it said.
        var b = new WireLogBuilder();
        b.Replace(b.Call(0, [1], 0, 1) with { OutputEndByte = 100, DeliveredOutputBytesAtCompletion = 100 });
        b.Replace(b.Call(1, [1], 1, 2) with { OutputEndByte = 200, DeliveredOutputBytesAtCompletion = 250 });
        b.Replace(
            b.Call(2, [1], 9, 12, CallOutcome.Failed, error: "FrameWriterFaultedException: reset") with
            {
                OutputEndByte = 300,
                DeliveredOutputBytesAtCompletion = 250,
            }
        );
        b.Call(3, [1], 9, 12, CallOutcome.Cancelled);
        Assert.True(
            _checker.Run(Declared(b.Evidence(e => e with { Fault = Reset }), WriterCompletion.AfterFlush)).Holds
        );
    }

    [Fact]
    public void Delivery_is_not_judged_where_the_harness_did_not_follow_the_writers_output()
    {
        // Client level: no controlled output, so no delivery record; the declaration alone is not enough to judge.
        var b = new WireLogBuilder();
        b.Call(0, [1], 0, 1);
        var evidence = b.Evidence(e => e with { Fault = Reset, DeclaredCompletion = WriterCompletion.AfterFlush });
        Assert.True(_checker.Run(evidence).Holds);
        Assert.False(_checker.Run(evidence with { OutputDeliveryTracked = true }).Holds);
    }
}
