using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.WireFormat;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer with a fast path for small bodies (up to 64 bytes): it asks the pipe for the
/// 7-byte frame header only (<c>GetSpan(7)</c>) and then encodes the whole body frame, header, payload and frame end,
/// into what it got, trusting that "a pipe always has room for a small frame". A <see cref="PipeWriter"/> promises only
/// the size asked for: near the end of a segment, or from any writer that hands out exactly the hint, the payload does
/// not fit and the copy throws with the command's method and header frames already in the pipe; the writer takes that
/// for a broken output and stops. Larger bodies go through the pipe's own <c>Write</c>, which is right.
/// </summary>
public sealed class SpanPastHintWriter(WriterContext context) : InlineZooWriter(context, "span-past-hint")
{
    /// <summary>Bodies up to this long take the fast path.</summary>
    public const int SmallBody = 64;

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        var body = command.Body.Span;
        if (body.IsEmpty || body.Length > SmallBody || body.Length > AmqpConstants.MaxBodyFramePayload(frameMax))
        {
            CommandFraming.Write(output, command, command.Body.Span, frameMax);
            return;
        }
        output.Write(command.Frames.Span);
        // BUG: asks for the header's 7 bytes and writes the whole frame into the span.
        var span = output.GetSpan(AmqpConstants.FrameHeaderSize);
        FrameFormat.WriteHeader(span, FrameType.Body, command.Channel, body.Length);
        body.CopyTo(span[AmqpConstants.FrameHeaderSize..]);
        span[AmqpConstants.FrameHeaderSize + body.Length] = AmqpConstants.FrameEnd;
        output.Advance(AmqpConstants.FrameHeaderSize + body.Length + 1);
    }
}
