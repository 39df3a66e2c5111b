using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Verdicts;

public class BodiesCheckerTests
{
    private readonly BodiesChecker _checker = new();

    [Fact]
    public void Callers_bytes_on_the_wire_hold()
    {
        var b = new WireLogBuilder();
        byte[] body = WireLogBuilder.Bytes(10_000);
        b.Publish(1, 0, body);
        b.Call(0, body, 0, 1);
        Assert.True(_checker.Run(b.Evidence()).Holds);
    }

    [Fact]
    public void A_changed_byte_is_caught_with_its_frame()
    {
        var b = new WireLogBuilder();
        byte[] body = WireLogBuilder.Bytes(10_000);
        byte[] wire = (byte[])body.Clone();
        wire[9000] ^= 0xFF;
        long[] seqs = b.Publish(1, 0, wire);
        b.Call(0, body, 0, 1);
        var v = _checker.Run(b.Evidence()).Single("body-mismatch");
        Assert.Equal([seqs[4]], v.Frames);
        Assert.Contains("offset 9000", v.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Poison_on_the_wire_after_completion_is_reported_as_a_late_read()
    {
        var b = new WireLogBuilder();
        byte[] body = WireLogBuilder.Bytes(100);
        byte[] wire = (byte[])body.Clone();
        wire.AsSpan(50).Fill(CallRecord.PoisonByte);
        body[50] = 0; // make sure the expected byte differs from the poison
        b.Publish(1, 0, wire);
        b.Replace(b.Call(0, body, 0, 1) with { PoisonedAfterCompletion = true });
        Assert.Equal([0], _checker.Run(b.Evidence()).Single("read-after-completion").Calls);
    }

    [Fact]
    public void Digests_alone_are_enough_when_payloads_were_not_kept()
    {
        var b = new WireLogBuilder();
        byte[] body = WireLogBuilder.Bytes(5000);
        byte[] wire = (byte[])body.Clone();
        wire[10] ^= 1;
        b.Publish(1, 0, wire);
        b.Call(0, body, 0, 1);
        var stripped = b.Evidence(e =>
            e with
            {
                Frames = [.. e.Frames.Select(f => f.Type == Protocol.FrameType.Body ? f with { Payload = null } : f)],
            }
        );
        Assert.False(_checker.Run(stripped).Holds);
        var good = new WireLogBuilder();
        good.Publish(1, 0, body);
        good.Call(0, body, 0, 1);
        Assert.True(
            _checker
                .Run(
                    good.Evidence(e =>
                        e with
                        {
                            Frames =
                            [
                                .. e.Frames.Select(f =>
                                    f with
                                    {
                                        Payload = f.Type == Protocol.FrameType.Body ? null : f.Payload,
                                    }
                                ),
                            ],
                        }
                    )
                )
                .Holds
        );
    }
}
