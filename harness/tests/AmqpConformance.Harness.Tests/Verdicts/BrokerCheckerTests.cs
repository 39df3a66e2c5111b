using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Harness.Tests.Verdicts;

public class BrokerCheckerTests
{
    private readonly BrokerChecker _checker = new();

    [Fact]
    public void Connection_errors_and_strict_findings_are_violations_under_their_broker_rule()
    {
        var b = new WireLogBuilder();
        var verdict = _checker.Run(
            b.Evidence(e =>
                e with
                {
                    Findings =
                    [
                        new ProtocolFinding(
                            7,
                            505,
                            "body-exceeds-declared-size",
                            "body frame 7 overruns",
                            ClosedConnection: true
                        ),
                        new ProtocolFinding(
                            9,
                            0,
                            "content-interleaved",
                            "channel 2 between header and body of channel 1",
                            ClosedConnection: false
                        ),
                    ],
                }
            )
        );
        var closed = verdict.Single("body-exceeds-declared-size");
        Assert.Equal([7L], closed.Frames);
        Assert.Contains("with 505", closed.Message, StringComparison.Ordinal);
        Assert.StartsWith("strict profile", verdict.Single("content-interleaved").Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_frame_cut_by_an_injected_fault_is_excused_but_not_one_cut_without_a_fault()
    {
        var b = new WireLogBuilder();
        var truncated = new ProtocolFinding(
            -1,
            0,
            BrokerChecker.TruncatedFrameRule,
            "stream ended inside a frame",
            ClosedConnection: false
        );
        var fault = new TransportFaultRecord(TimeSpan.FromMilliseconds(3), "reset after 100 bytes", null, 0);
        Assert.True(_checker.Run(b.Evidence(e => e with { Findings = [truncated], Fault = fault })).Holds);
        _checker.Run(b.Evidence(e => e with { Findings = [truncated] })).Single(BrokerChecker.TruncatedFrameRule);
        var brokerClosed = fault with { Description = BrokerChecker.BrokerClosedPrefix + ": 505" };
        _checker
            .Run(b.Evidence(e => e with { Findings = [truncated], Fault = brokerClosed }))
            .Single(BrokerChecker.TruncatedFrameRule);
    }
}
