using System.Runtime.InteropServices;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Bodies;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue) with two body-copy paths. A body backed by an
/// array (<see cref="MemoryMarshal.TryGetArray{T}(ReadOnlyMemory{T}, out ArraySegment{T})"/>) is block-copied from its
/// segment, which is right. A body that is not (native memory behind a <see cref="System.Buffers.MemoryManager{T}"/>,
/// as a caller that publishes from an unmanaged or memory-mapped buffer hands over) is copied through its span into a
/// rented array, and that path stages the copy with the rented array's length instead of the body's: the pool rounds
/// up, so the body goes out with the pool's leftover bytes after it, more than its header declares. Every array-backed
/// body, and a native one whose length the pool does not round, goes out right.
/// </summary>
public sealed class NonArrayBodyCopyWriter(WriterContext context) : StagedZooWriter(context, "non-array-body-copy")
{
    private protected override StagedCommand Stage(OutgoingCommand command)
    {
        if (command.BodyOwner is not null || command.Body.IsEmpty)
            return StagedCommand.NoCopy(command);
        int length = command.Body.Length;
        byte[] copy = Context.Pool.Rent(length);
        if (MemoryMarshal.TryGetArray(command.Body, out ArraySegment<byte> segment))
        {
            Buffer.BlockCopy(segment.Array!, segment.Offset, copy, 0, length);
            return StagedCommand.WithCopy(command, copy, length);
        }
        command.Body.Span.CopyTo(copy);
        // BUG: the rented array's length, not the body's.
        return StagedCommand.WithCopy(command, copy, copy.Length);
    }
}
