using System.Buffers.Binary;
using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.WireFormat;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that keeps, per channel, the content header frame it sent last, and when the
/// next publish on that channel brings a header frame of the same length with the same property flags ("the same
/// properties, only the body size changes", the usual case of a publisher reusing one BasicProperties) writes the
/// cached frame with the new body size patched in, instead of the caller's. Same flags and length do not make the same
/// values: a message-id, correlation-id, timestamp or header value that changed but kept its encoded length goes out as
/// the previous message's. Publishes without properties, and properties whose flags or encoded length change, are
/// right.
/// </summary>
public sealed class HeaderShapeCacheWriter(WriterContext context) : InlineZooWriter(context, "header-shape-cache")
{
    private const int BodySizeOffset = AmqpConstants.FrameHeaderSize + 4;
    private const int FlagsOffset = AmqpConstants.FrameHeaderSize + 12;
    private readonly Dictionary<ushort, byte[]> _lastHeader = [];

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        var frames = command.Frames.Span;
        if (!command.HasContent)
        {
            base.WriteCommand(output, command, frameMax);
            return;
        }
        int methodLength = AmqpConstants.FrameOverhead + BinaryPrimitives.ReadInt32BigEndian(frames[3..]);
        var header = frames[methodLength..];
        output.Write(frames[..methodLength]);
        if (
            _lastHeader.TryGetValue(command.Channel, out var cached)
            && cached.Length == header.Length
            && header.Length > FlagsOffset + 1
            && BinaryPrimitives.ReadUInt16BigEndian(cached.AsSpan(FlagsOffset))
                == BinaryPrimitives.ReadUInt16BigEndian(header[FlagsOffset..])
        )
        {
            // BUG: same length and flags are taken for the same property values; only the body size is patched.
            var span = output.GetSpan(cached.Length);
            cached.CopyTo(span);
            BinaryPrimitives.WriteUInt64BigEndian(span[BodySizeOffset..], (ulong)command.Body.Length);
            output.Advance(cached.Length);
        }
        else
        {
            _lastHeader[command.Channel] = header.ToArray();
            output.Write(header);
        }
        FrameFormat.WriteBodyFrames(output, command.Channel, command.Body.Span, frameMax);
    }
}
