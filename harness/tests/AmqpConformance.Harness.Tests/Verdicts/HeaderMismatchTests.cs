using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Protocol;

namespace AmqpConformance.Harness.Tests.Verdicts;

/// <summary>The bodies invariant's header rule: a publish's content header whose message-id names a call names its own
/// command's call (a writer that re-sends a cached header of the same shape shows), and headers without such a
/// message-id are not judged.</summary>
public sealed class HeaderMismatchTests
{
    [Fact]
    public void A_message_id_names_its_call_in_eight_digits_and_nothing_else_is_read_as_one()
    {
        Assert.Equal("msg-00000042", CallCorrelation.MessageIdFor(42));
        Assert.Equal(CallCorrelation.MessageIdFor(7).Length, CallCorrelation.MessageIdFor(12345).Length);
        Assert.Equal(12345, CallCorrelation.CallIdFromMessageId(CallCorrelation.MessageIdFor(12345)));
        Assert.Null(CallCorrelation.CallIdFromMessageId("msg-42"));
        Assert.Null(CallCorrelation.CallIdFromMessageId("order-00000042"));
        Assert.Null(CallCorrelation.CallIdFromMessageId(null));
    }

    [Theory]
    [InlineData(1, true)] // call 1's command carries call 0's header: the cached header went out again
    [InlineData(1, false)] // each its own
    public void A_header_carrying_another_calls_message_id_is_a_header_mismatch(int secondCall, bool stale)
    {
        var log = new WireLogBuilder(4096);
        var body = WireLogBuilder.Bytes(10);
        log.Method(1, 0);
        log.Header(1, body.Length, new BasicProperties { MessageId = CallCorrelation.MessageIdFor(0) });
        log.Body(1, body);
        log.Method(1, secondCall);
        long header = log.Header(
            1,
            body.Length,
            new BasicProperties { MessageId = CallCorrelation.MessageIdFor(stale ? 0 : secondCall) }
        );
        log.Body(1, body);
        log.Call(0, body, 0, 1);
        log.Call(secondCall, body, 1, 2);
        var evidence = log.Evidence();
        var verdict = new BodiesChecker().Check(evidence, WireAssembly.From(evidence));
        if (!stale)
        {
            Assert.True(verdict.Holds, verdict.ToString());
            return;
        }
        var violation = Assert.Single(verdict.Violations);
        Assert.Equal("header-mismatch", violation.Rule);
        Assert.Contains(header, violation.Frames);
    }

    [Fact]
    public void A_header_without_a_harness_message_id_is_not_judged()
    {
        var log = new WireLogBuilder(4096);
        var body = WireLogBuilder.Bytes(10);
        log.Method(1, 0);
        log.Header(1, body.Length, new BasicProperties { MessageId = "order-1" });
        log.Body(1, body);
        log.Call(0, body, 0, 1);
        var evidence = log.Evidence();
        Assert.True(new BodiesChecker().Check(evidence, WireAssembly.From(evidence)).Holds);
    }
}
