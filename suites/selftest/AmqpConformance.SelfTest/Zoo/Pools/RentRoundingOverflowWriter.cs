using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: A one-buffer-per-command writer (serialize the whole command into one pooled buffer, one Write,
/// one flush under a lock) that sizes the buffer by hand: frames + body + 8 bytes of framing per body frame, counting
/// the body frames as body / (frame_max - 8), which forgets the last, partial frame. The buffer is 8 bytes short for
/// almost every body, and nobody notices because ArrayPool rounds a rental up to a power of two: it only overflows when
/// the computed length falls in the last 8 bytes below a power of two. Then serializing throws (ArgumentException from
/// the copy), the call fails on a healthy connection, and the command (and the staging buffer) are never given back.
/// </summary>
public sealed class RentRoundingOverflowWriter(WriterContext context)
    : WholeImageZooWriter(context, "rent-rounding-overflow")
{
    /// <inheritdoc />
    protected override byte[] StageImage(OutgoingCommand command, out int written)
    {
        int max = AmqpConstants.MaxBodyFramePayload(Context.FrameMax);
        int bodyFrames = command.Body.Length / max; // BUG: should round up
        int length = command.FramesLength + command.Body.Length + bodyFrames * AmqpConstants.FrameOverhead;
        byte[] image = Context.Pool.Rent(length);
        written = ZooHelpers.WriteWholeCommand(image, command, Context.FrameMax); // throws when the rounding did not cover it
        return image;
    }
}
