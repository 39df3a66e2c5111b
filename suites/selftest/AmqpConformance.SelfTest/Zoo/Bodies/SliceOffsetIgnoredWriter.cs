using System.Runtime.InteropServices;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Bodies;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue) whose body copy takes the array behind the body
/// (<see cref="MemoryMarshal.TryGetArray{T}(ReadOnlyMemory{T}, out ArraySegment{T})"/>) and block-copies it from index
/// 0 instead of from the segment's offset. A body that starts at the beginning of its array is copied correctly; a body
/// that is a slice further into a larger (say, pooled) array goes out as the wrong bytes.
/// </summary>
public sealed class SliceOffsetIgnoredWriter(WriterContext context) : StagedZooWriter(context, "slice-offset-ignored")
{
    private protected override StagedCommand Stage(OutgoingCommand command)
    {
        if (command.BodyOwner is not null || command.Body.IsEmpty)
            return StagedCommand.NoCopy(command);
        int length = command.Body.Length;
        byte[] copy = Context.Pool.Rent(length);
        if (MemoryMarshal.TryGetArray(command.Body, out ArraySegment<byte> segment))
            // BUG: copies from the start of the array, not from segment.Offset.
            Buffer.BlockCopy(segment.Array!, 0, copy, 0, segment.Count);
        else
            command.Body.Span.CopyTo(copy);
        return StagedCommand.WithCopy(command, copy, length);
    }
}
