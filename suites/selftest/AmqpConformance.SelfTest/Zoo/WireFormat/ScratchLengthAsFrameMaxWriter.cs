using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.WireFormat;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that assembles each body frame (header, payload, frame end) in one scratch buffer per
/// connection, rented from the context pool as <c>Rent(frame_max)</c> on first use and kept until disposal, and that slices the
/// body by the scratch it got: <c>scratch.Length - 8</c> bytes per frame. The pool rounds a rental up (to a power of two), so
/// under a frame_max that is not a power of two the scratch is longer than frame_max and every full body frame exceeds the
/// negotiated frame_max. At frame_max 0 it writes body frames straight into the output, and at the usual powers of two
/// (4096, 131072) the scratch is exactly frame_max and it is right.
/// </summary>
public sealed class ScratchLengthAsFrameMaxWriter(WriterContext context) : InlineZooWriter(context, "scratch-length-as-frame-max")
{
    private byte[]? _scratch;
    private int _disposing;

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        if (frameMax == 0 || command.Body.IsEmpty)
        {
            base.WriteCommand(output, command, frameMax);
            return;
        }
        output.Write(command.Frames.Span);
        _scratch ??= Context.Pool.Rent(frameMax);
        // BUG: the scratch is as long as the pool made it, not frame_max; its length is taken for the frame limit.
        int max = _scratch.Length - AmqpConstants.FrameOverhead;
        var body = command.Body.Span;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(max, body.Length)];
            var scratch = _scratch.AsSpan();
            FrameFormat.WriteHeader(scratch, FrameType.Body, command.Channel, chunk.Length);
            chunk.CopyTo(scratch[AmqpConstants.FrameHeaderSize..]);
            scratch[AmqpConstants.FrameHeaderSize + chunk.Length] = AmqpConstants.FrameEnd;
            output.Write(scratch[..(chunk.Length + AmqpConstants.FrameOverhead)]);
            body = body[chunk.Length..];
        }
    }

    /// <inheritdoc />
    public override async ValueTask DisposeAsync()
    {
        bool first = Interlocked.Exchange(ref _disposing, 1) == 0;
        await base.DisposeAsync().ConfigureAwait(false);
        if (first && Interlocked.Exchange(ref _scratch, null) is { } scratch) Context.Pool.Return(scratch);
    }
}
