using System.Buffers;
using AmqpConformance.Protocol;

namespace AmqpConformance.Protocol.Tests.Protocol;

/// <summary>Splitting a body into body frames: frame_max - 8 bytes a frame, one frame when frame_max is 0, and a clear
/// error (not a loop that never ends) for a frame_max with no room for a body byte.</summary>
public sealed class BodyFramingTests
{
    [Theory]
    [InlineData(1)]
    [InlineData(8)]
    [InlineData(-1)]
    public void A_frame_max_with_no_room_for_a_body_byte_is_refused(int frameMax)
    {
        var output = new ArrayBufferWriter<byte>();
        var error = Assert.Throws<ArgumentOutOfRangeException>(() =>
            FrameFormat.WriteBodyFrames(output, 1, new byte[10], frameMax)
        );
        Assert.Contains(
            $"frame_max {frameMax} leaves no room for a body byte",
            error.Message,
            StringComparison.Ordinal
        );
        Assert.Equal(0, output.WrittenCount);
        Assert.Throws<ArgumentOutOfRangeException>(() => FrameFormat.BodyFrameCount(10, frameMax));
    }

    [Theory]
    [InlineData(9, 10, 10)]
    [InlineData(4096, 10_000, 3)]
    [InlineData(0, 10_000, 1)]
    public void A_body_is_split_into_frames_of_frame_max_less_8(int frameMax, int bodyLength, int frames)
    {
        var output = new ArrayBufferWriter<byte>();
        FrameFormat.WriteBodyFrames(output, 1, new byte[bodyLength], frameMax);
        Assert.Equal(frames, FrameFormat.BodyFrameCount(bodyLength, frameMax));
        Assert.Equal(bodyLength + frames * AmqpConstants.FrameOverhead, output.WrittenCount);
    }
}
