using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer with a fast path for commands that fit in one frame_max-sized staging buffer:
/// it serializes the whole command there and hands the pipe one span. Its fit test adds the frames and the body
/// (<c>FramesLength + Body.Length &lt;= frame_max</c>) and forgets the 8 bytes of the body frame's header and end
/// marker, so a command whose wire length lands 1 to 8 bytes above the staging buffer's length overflows it: the write
/// throws, the writer takes that for an output failure and stops on a healthy connection. The pool rounds the staging
/// buffer up to a power of two, so it shows only at power-of-two frame_max (4096, 8192, 131072, and 0, staged as
/// 131072) and only for a body within 8 bytes of frame_max - FramesLength: a size that depends on the routing key and
/// the headers, not on frame_max - 8.
/// </summary>
public sealed class SingleFrameFastPathOffBy8Writer(WriterContext context)
    : InlineZooWriter(context, "single-frame-fast-path")
{
    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        int staging = frameMax == 0 ? 128 * 1024 : frameMax;
        // BUG: the body frame's 7-byte header and 1-byte end marker are left out of the fit test.
        if (command.FramesLength + command.Body.Length > staging)
        {
            CommandFraming.Write(output, command, command.Body.Span, frameMax);
            return;
        }
        byte[] buffer = Context.Pool.Rent(staging);
        try
        {
            int length = ZooHelpers.WriteWholeCommand(buffer, command, frameMax);
            output.Write(buffer.AsSpan(0, length));
        }
        finally
        {
            Context.Pool.Return(buffer);
        }
    }
}
