using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Verdicts;

public class NoInterleavingCheckerTests
{
    private readonly NoInterleavingChecker _checker = new();

    [Fact]
    public void Back_to_back_commands_on_many_channels_hold()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, WireLogBuilder.Bytes(9000));
        b.Publish(2, 1, WireLogBuilder.Bytes(9000));
        b.Publish(1, 2, []);
        Assert.True(_checker.Run(b.Evidence()).Holds);
    }

    [Fact]
    public void Another_channels_frame_inside_a_command_is_a_writer_level_violation_only()
    {
        var b = new WireLogBuilder();
        byte[] body = WireLogBuilder.Bytes(5000);
        long m = b.Method(1, 0);
        long h = b.Header(1, 5000);
        long b1 = b.Body(1, body.AsSpan(0, 4088));
        long[] other = b.Publish(2, 1, [7]);
        long b2 = b.Body(1, body.AsSpan(4088));
        var verdict = _checker.Run(b.Evidence());
        var v = Assert.Single(verdict.Violations);
        Assert.Equal("frames-not-contiguous", v.Rule);
        Assert.Equal(
            new long[] { m, h, b1, b2 }
                .Concat(other)
                .Order(),
            v.Frames.Order()
        );
        Assert.Equal([0, 1], v.Calls);
    }

    [Fact]
    public void A_method_inside_unfinished_content_on_the_same_channel_is_reported_at_both_levels()
    {
        var b = new WireLogBuilder();
        b.Method(1, 0);
        b.Header(1, 4);
        long intruder = b.Publish(1, 1, [1])[0];
        var verdict = _checker.Run(b.Evidence());
        var protocol = verdict.Single("channel-content-interleaved");
        Assert.Equal([intruder], protocol.Frames);
        Assert.Equal([0, 1], protocol.Calls);
    }
}
