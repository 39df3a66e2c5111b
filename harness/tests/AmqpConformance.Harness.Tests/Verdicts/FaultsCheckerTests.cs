using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Verdicts;

public class FaultsCheckerTests
{
    private readonly FaultsChecker _checker = new();
    private static readonly TransportFaultRecord Reset = new(TimeSpan.FromMilliseconds(10), "reset after 100 bytes", TimeSpan.FromMilliseconds(11), 0);

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
    public void Bytes_after_the_fault_and_success_after_the_grace_period_are_caught()
    {
        var b = new WireLogBuilder();
        b.Call(0, [1], 1_100, 1_101); // fault seen at 11 ms; the grace period is 1 s
        var verdict = _checker.Run(b.Evidence(e => e with { Fault = Reset with { BytesWrittenAfterFault = 42 } }));
        Assert.Contains("42", verdict.Single("bytes-after-fault").Message, StringComparison.Ordinal);
        Assert.Equal([0], verdict.Single("succeeded-after-fault").Calls);
    }

    [Fact]
    public void A_call_racing_the_fault_within_the_grace_period_may_still_succeed()
    {
        var b = new WireLogBuilder();
        b.Call(0, [1], 11.5, 11.6); // fault seen at 11 ms; 0.5 ms later is inside the grace period
        Assert.True(_checker.Run(b.Evidence(e => e with { Fault = Reset })).Holds);
        Assert.False(new FaultsChecker { Grace = TimeSpan.Zero }.Run(b.Evidence(e => e with { Fault = Reset })).Holds);
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
        var verdict = _checker.Run(b.Evidence(e => e with
        {
            Fault = Reset, Pool = PoolLedgers.With(2, 1, PoolLedgers.Finding(AmqpConformance.Harness.Pooling.PoolFindingKind.Leak, "array #2")),
        }));
        verdict.Single("buffers-not-returned-after-fault");
    }
}
