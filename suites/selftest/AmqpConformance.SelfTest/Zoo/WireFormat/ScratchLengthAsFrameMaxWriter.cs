using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.WireFormat;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that assembles each body frame (header, payload, frame end) in one scratch
/// buffer per connection, rented from the context pool as <c>Rent(frame_max)</c> on first use and kept until disposal,
/// and that slices the body by the scratch it got: <c>scratch.Length - 8</c> bytes per frame. The pool rounds a rental
/// up (to a power of two), so under a frame_max that is not a power of two the scratch is longer than frame_max and
/// every full body frame exceeds the negotiated frame_max. At frame_max 0 it writes body frames straight into the
/// output, and at the usual powers of two (4096, 131072) the scratch is exactly frame_max and it is right.
/// </summary>
public sealed class ScratchLengthAsFrameMaxWriter(WriterContext context)
    : FrameScratchZooWriter(context, "scratch-length-as-frame-max")
{
    /// <inheritdoc />
    protected override int ScratchLength(int frameMax) => frameMax;

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        if (frameMax == 0 || command.Body.IsEmpty)
        {
            CommandFraming.Write(output, command, command.Body.Span, frameMax);
            return;
        }
        var scratch = RentedScratch(ScratchLength(frameMax));
        // BUG: the scratch is as long as the pool made it, not frame_max; its length is taken for the frame limit.
        WriteThroughScratch(output, command, scratch, scratch.Length - AmqpConstants.FrameOverhead);
    }
}
