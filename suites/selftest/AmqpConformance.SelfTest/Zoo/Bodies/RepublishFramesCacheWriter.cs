using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.InteropServices;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Bodies;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that remembers the body frames it encoded last, keyed by the body's array,
/// offset, length and channel, so that a publisher sending one message to several routing keys (the same body memory,
/// call after call) pays for the framing once. The key is the memory's identity, not its contents: a caller that reuses
/// its body buffer (as pooled publishers do) and fills it with a new message of the same length gets the previous
/// message's bytes on the wire. Bodies that differ in array, offset, length or channel, and bodies not backed by an
/// array, are framed afresh.
/// </summary>
public sealed class RepublishFramesCacheWriter(WriterContext context)
    : InlineZooWriter(context, "republish-frames-cache")
{
    private byte[]? _lastArray;
    private int _lastOffset;
    private int _lastLength = -1;
    private ushort _lastChannel;
    private byte[] _lastFrames = [];

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        if (!command.HasContent || command.Body.IsEmpty || !MemoryMarshal.TryGetArray(command.Body, out var segment))
        {
            base.WriteCommand(output, command, frameMax);
            return;
        }
        output.Write(command.Frames.Span);
        // BUG: same array, offset, length and channel is taken for "same message"; the caller may have rewritten the
        // bytes.
        if (
            !(
                ReferenceEquals(segment.Array, _lastArray)
                && segment.Offset == _lastOffset
                && segment.Count == _lastLength
                && command.Channel == _lastChannel
            )
        )
        {
            var frames = new ArrayBufferWriter<byte>();
            Protocol.FrameFormat.WriteBodyFrames(frames, command.Channel, command.Body.Span, frameMax);
            _lastFrames = frames.WrittenSpan.ToArray();
            _lastArray = segment.Array;
            _lastOffset = segment.Offset;
            _lastLength = segment.Count;
            _lastChannel = command.Channel;
        }
        output.Write(_lastFrames);
    }
}
