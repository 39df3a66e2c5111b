using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.Bodies;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that assembles each body frame (header, payload, frame end) in a staging buffer and
/// hands it to the output in one Write. To spare every connection its own 64 KiB, the buffer is static: one for the whole
/// process. Each connection's lock keeps its own calls from sharing it at once, but two connections writing at the same time
/// assemble their frames in the same bytes, and one sends the other's payload (or channel) in its frame. A process with one
/// connection, or with connections that never write at the same moment, sees nothing wrong. Payloads larger than the buffer
/// are written straight from the body.
/// </summary>
public sealed class StaticStagingAcrossConnectionsWriter(WriterContext context) : InlineZooWriter(context, "static-staging")
{
    private const int StagingSize = 64 * 1024;

    // BUG: static, shared by every connection; only each instance's own lock guards it.
    private static readonly byte[] Staging = new byte[StagingSize];

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        output.Write(command.Frames.Span);
        int max = AmqpConstants.MaxBodyFramePayload(frameMax);
        var body = command.Body.Span;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(max, body.Length)];
            int frame = chunk.Length + AmqpConstants.FrameOverhead;
            if (frame > StagingSize)
            {
                FrameFormat.WriteBodyFrames(output, command.Channel, chunk, 0);
            }
            else
            {
                FrameFormat.WriteHeader(Staging, FrameType.Body, command.Channel, chunk.Length);
                chunk.CopyTo(Staging.AsSpan(AmqpConstants.FrameHeaderSize));
                Staging[frame - 1] = AmqpConstants.FrameEnd;
                output.Write(Staging.AsSpan(0, frame));
            }
            body = body[chunk.Length..];
        }
    }
}
