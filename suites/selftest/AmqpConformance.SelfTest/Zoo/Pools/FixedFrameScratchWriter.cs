using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that assembles each body frame (header, payload, frame end) in a per-connection scratch
/// buffer rented once, of frame_max bytes but capped at the largest frame "RabbitMQ ever negotiates": its default frame_max of 131072. With frame_max 0
/// (unlimited, no frame size to plan for) it writes body frames straight into the output instead. A broker configured with a
/// larger frame_max (RabbitMQ allows it) makes a full body frame longer than the scratch: the copy throws, the writer stops and
/// every later call fails. At any frame_max up to 131072, and at 0, it is correct.
/// </summary>
public sealed class FixedFrameScratchWriter(WriterContext context) : InlineZooWriter(context, "fixed-frame-scratch")
{
    // frame_max is whatever the broker offered, not at most 131072.
    private const int LargestFrame = 131072;
    private byte[]? _scratch;
    private int _disposing;

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        if (frameMax == 0)
        {
            base.WriteCommand(output, command, frameMax);
            return;
        }
        output.Write(command.Frames.Span);
        // BUG: capped at 131072; a larger negotiated frame_max overflows it.
        int size = Math.Min(frameMax, LargestFrame);
        _scratch ??= Context.Pool.Rent(size);
        var scratch = _scratch.AsSpan(0, size);
        int max = AmqpConstants.MaxBodyFramePayload(frameMax);
        var body = command.Body.Span;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(max, body.Length)];
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
