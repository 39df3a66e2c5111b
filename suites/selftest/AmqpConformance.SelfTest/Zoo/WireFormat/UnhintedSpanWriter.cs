using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.WireFormat;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer with its own body-frame encoder that asks the pipe for memory without a size
/// hint (<c>GetSpan()</c>) and encodes the 7-byte frame header straight into what it got, trusting that "a pipe hands
/// out whole 4 KiB segments". A <see cref="PipeWriter"/> promises only that the span is not empty: after a write that
/// ended a few bytes short of a segment's end it hands back what is left of that segment, the header does not fit and
/// the encoder throws (<see cref="ArgumentOutOfRangeException"/>) with the command's method and header frames already
/// in the pipe. The writer takes that for a broken output and stops: the call fails although nothing failed, and so
/// does every later one. Over an output whose every span is large, every frame is right.
/// </summary>
public sealed class UnhintedSpanWriter(WriterContext context) : InlineZooWriter(context, "unhinted-span")
{
    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        output.Write(command.Frames.Span);
        int max = AmqpConstants.MaxBodyFramePayload(frameMax);
        var body = command.Body.Span;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(max, body.Length)];
            // BUG: no size hint: the span may be shorter than the 7-byte header.
            FrameFormat.WriteHeader(output.GetSpan(), FrameType.Body, command.Channel, chunk.Length);
            output.Advance(AmqpConstants.FrameHeaderSize);
            output.Write(chunk);
            output.GetSpan()[0] = AmqpConstants.FrameEnd;
            output.Advance(1);
            body = body[chunk.Length..];
        }
    }
}
