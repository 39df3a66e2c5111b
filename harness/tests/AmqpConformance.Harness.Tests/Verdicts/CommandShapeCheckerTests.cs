using AmqpConformance.Protocol;
using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Verdicts;

public class CommandShapeCheckerTests
{
    private readonly CommandShapeChecker _checker = new();

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(4088)]
    [InlineData(4089)]
    [InlineData(3 * 4088)]
    public void Well_formed_publishes_hold(int length)
    {
        var b = new WireLogBuilder(4096);
        byte[] body = WireLogBuilder.Bytes(length);
        b.Publish(1, 0, body);
        b.Call(0, body, 0, 1);
        Assert.True(_checker.Run(b.Evidence()).Holds);
    }

    [Fact]
    public void Short_body_frame_before_the_last_is_caught()
    {
        var b = new WireLogBuilder(4096);
        byte[] body = WireLogBuilder.Bytes(5000);
        b.Method(1, 0);
        b.Header(1, 5000);
        long first = b.Body(1, body.AsSpan(0, 2000));
        b.Body(1, body.AsSpan(2000));
        b.Call(0, body, 0, 1);
        Assert.Equal([first], _checker.Run(b.Evidence()).Single("body-frame-not-full").Frames);
    }

    [Fact]
    public void Declared_size_other_than_the_callers_body_is_caught()
    {
        var b = new WireLogBuilder();
        b.Method(1, 0);
        long header = b.Header(1, 0);
        b.Call(0, [1, 2, 3], 0, 1);
        var v = _checker.Run(b.Evidence()).Single("declared-size-mismatch");
        Assert.Equal([header], v.Frames);
        Assert.Equal([0], v.Calls);
    }

    [Fact]
    public void Body_frame_for_an_empty_body_is_an_orphan()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, []);
        long orphan = b.Body(1, [9]);
        Assert.Equal([orphan], _checker.Run(b.Evidence()).Single("orphan-body").Frames);
    }

    [Fact]
    public void Missing_header_and_unfinished_body_are_caught_without_a_fault_but_not_with_one()
    {
        var b = new WireLogBuilder();
        b.Method(1, 0);
        b.Method(2, 1);
        b.Header(2, 10);
        b.Body(2, new byte[4]);
        var verdict = _checker.Run(b.Evidence());
        Assert.Contains(verdict.Violations, v => v.Rule == "missing-header" && v.Calls.SequenceEqual([0]));
        Assert.Contains(verdict.Violations, v => v.Rule == "body-incomplete" && v.Calls.SequenceEqual([1]));
        Assert.True(_checker.Run(b.Evidence(e => e with { Fault = new TransportFaultRecord(TimeSpan.Zero, "reset", null, 0) })).Holds);
    }

    [Fact]
    public void Body_past_the_declared_size_is_caught()
    {
        var b = new WireLogBuilder();
        b.Method(1, 0);
        b.Header(1, 2);
        long over = b.Add(FrameType.Body, 1, [1, 2, 3]);
        Assert.Equal([over], _checker.Run(b.Evidence()).Single("body-exceeds-declared").Frames);
    }
}
