using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Protocol;

namespace AmqpConformance.Harness.Tests.Verdicts;

public class WireFormatCheckerTests
{
    private readonly WireFormatChecker _checker = new();

    [Fact]
    public void Clean_log_holds()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, WireLogBuilder.Bytes(10000));
        b.Call(0, WireLogBuilder.Bytes(10000), 0, 1);
        Assert.True(_checker.Run(b.Evidence()).Holds);
    }

    [Fact]
    public void Frame_larger_than_frame_max_is_caught_including_header_frames()
    {
        var b = new WireLogBuilder(4096);
        b.Method(1, 0);
        long header = b.Add(FrameType.Header, 1, new byte[4089], classId: 60, declared: 0); // 4097 on the wire
        var v = _checker.Run(b.Evidence()).Single("frame-exceeds-frame-max");
        Assert.Equal([header], v.Frames);
    }

    [Fact]
    public void Frame_max_zero_means_unlimited()
    {
        var b = new WireLogBuilder(0);
        b.Publish(1, 0, WireLogBuilder.Bytes(200_000));
        Assert.True(_checker.Run(b.Evidence()).Holds);
    }

    [Fact]
    public void Bad_frame_end_and_unknown_type_are_caught()
    {
        var b = new WireLogBuilder();
        long bad = b.Add(FrameType.Body, 1, [1, 2], frameEndValid: false);
        long odd = b.Add((FrameType)7, 1, [1]);
        var verdict = _checker.Run(b.Evidence());
        Assert.Equal([bad], verdict.Single("bad-frame-end").Frames);
        Assert.Equal([odd], verdict.Single("unknown-frame-type").Frames);
    }

    [Fact]
    public void Trailing_partial_frame_is_caught_only_without_a_fault()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1, 2, 3]);
        Assert.False(_checker.Run(b.Evidence(e => e with { TrailingPartialBytes = 5 })).Holds);
        Assert.True(
            _checker
                .Run(
                    b.Evidence(e =>
                        e with
                        {
                            TrailingPartialBytes = 5,
                            Fault = new TransportFaultRecord(TimeSpan.Zero, "reset", null, 0),
                        }
                    )
                )
                .Holds
        );
    }
}
