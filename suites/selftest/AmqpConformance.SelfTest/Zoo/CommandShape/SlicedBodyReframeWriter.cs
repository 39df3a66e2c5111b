using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.CommandShape;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that bounds what one call parks in the pipe by writing a large body in slices
/// of at most 1 MiB and flushing after each slice (so a 64 MiB message never sits in the pipe at once). It frames each
/// slice with the ordinary body-frame routine, so the frame boundaries restart at every slice: unless 1 MiB is a
/// multiple of frame_max - 8, the last frame of every slice but the last is short, in the middle of the body. Bodies of
/// 1 MiB or less are one slice and are framed correctly.
/// </summary>
public sealed class SlicedBodyReframeWriter(WriterContext context) : InlineZooWriter(context, "sliced-body-reframe")
{
    /// <summary>The most body bytes written between two flushes.</summary>
    public const int SliceLength = 1 << 20;

    /// <inheritdoc />
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        var output = Context.Output;
        output.Write(command.Frames.Span);
        var body = command.Body;
        while (body.Length > SliceLength)
        {
            // BUG: each slice is framed on its own, so its last frame is short whenever SliceLength is not a multiple
            // of frame_max - 8; the frames must be cut from the whole body, not from each slice.
            FrameFormat.WriteBodyFrames(output, command.Channel, body.Span[..SliceLength], Context.FrameMax);
            CommandFraming.ThrowIfNotDelivered(await output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
            body = body[SliceLength..];
        }
        FrameFormat.WriteBodyFrames(output, command.Channel, body.Span, Context.FrameMax);
        CommandFraming.ThrowIfNotDelivered(await output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
    }
}
