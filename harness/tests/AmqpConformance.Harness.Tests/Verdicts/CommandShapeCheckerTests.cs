using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Protocol;

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
    public void A_body_cut_into_frames_at_frame_max_0_is_caught()
    {
        // frame_max 0 is unlimited: the body is one frame. A writer that reads 0 as RabbitMQ's default 131072 cuts at
        // 131064.
        var b = new WireLogBuilder(0);
        byte[] body = WireLogBuilder.Bytes(131064 + 10);
        b.Method(1, 0);
        b.Header(1, body.Length);
        long first = b.Body(1, body.AsSpan(0, 131064));
        b.Body(1, body.AsSpan(131064));
        b.Call(0, body, 0, 1);
        Assert.Equal([first], _checker.Run(b.Evidence()).Single("body-frame-not-full").Frames);
    }

    [Fact]
    public void A_body_in_one_frame_at_frame_max_0_holds()
    {
        var b = new WireLogBuilder(0);
        byte[] body = WireLogBuilder.Bytes(131064 + 10);
        b.Publish(1, 0, body);
        b.Call(0, body, 0, 1);
        Assert.True(_checker.Run(b.Evidence()).Holds);
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
        Assert.True(
            _checker
                .Run(b.Evidence(e => e with { Fault = new TransportFaultRecord(TimeSpan.Zero, "reset", null, 0) }))
                .Holds
        );
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

    [Fact]
    public void A_call_without_content_is_its_method_frame_alone_and_must_be_the_kind_the_caller_asked_for()
    {
        var b = new WireLogBuilder();
        b.Cancel(1, 0);
        b.Replace(b.Call(0, [], 0, 1) with { HasContent = false });
        b.Publish(1, 1, []);
        b.Call(1, [], 2, 3, index: 1);
        Assert.True(_checker.Run(b.Evidence()).Holds);

        var swapped = new WireLogBuilder();
        swapped.Publish(1, 0, []);
        swapped.Replace(swapped.Call(0, [], 0, 1) with { HasContent = false });
        swapped.Cancel(1, 1);
        swapped.Call(1, [], 2, 3, index: 1);
        var v = _checker.Run(swapped.Evidence());
        Assert.Equal(
            [0, 1],
            v.Violations.Where(x => x.Rule == "command-kind-mismatch").Select(x => Assert.Single(x.Calls))
        );
    }

    [Fact]
    public void A_basic_cancel_whose_consumer_tag_names_no_call_is_not_a_command_and_one_inside_content_cuts_it()
    {
        var b = new WireLogBuilder();
        b.Cancel(1, 0, consumerTag: "amq.ctag-1");
        var wire = WireAssembly.From(b.Evidence());
        Assert.Empty(wire.Commands);

        var cut = new WireLogBuilder();
        cut.Method(1, 0);
        cut.Header(1, 10);
        long intruder = cut.Cancel(1, 1);
        cut.Body(1, new byte[10]);
        var assembled = WireAssembly.From(cut.Evidence());
        var anomaly = Assert.Single(assembled.Anomalies, a => a.Rule == "method-during-content");
        Assert.Equal((intruder, (int?)0), (anomaly.Sequence, anomaly.InterruptedCall));
        Assert.False(Assert.Single(assembled.ByCall[1]).HasContent);
    }
}
