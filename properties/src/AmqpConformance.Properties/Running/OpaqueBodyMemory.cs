using System.Buffers;

namespace AmqpConformance.Properties.Running;

/// <summary>A caller's body array handed to the writer as memory that does not say it is an array: a
/// <see cref="MemoryManager{T}"/> whose <c>TryGetArray</c> is false (the base class's answer), as a body in native
/// memory, a memory-mapped file or a custom pool is. The bytes are the array's, so everything the harness does to the
/// array (poisoning it when the call completes, returning it to the caller pool) shows through the memory exactly as
/// for a plain slice; only a writer that asks
/// <see cref="System.Runtime.InteropServices.MemoryMarshal.TryGetArray{T}(ReadOnlyMemory{T}, out ArraySegment{T})"/>
/// takes its other path, so a writer whose copy for other memory is wrong shows.</summary>
/// <param name="array">The array behind the memory; the harness keeps owning it.</param>
internal sealed class OpaqueBodyMemory(byte[] array) : MemoryManager<byte>
{
    /// <inheritdoc />
    public override Span<byte> GetSpan() => array;

    /// <inheritdoc />
    public override MemoryHandle Pin(int elementIndex = 0) => array.AsMemory(elementIndex).Pin();

    /// <inheritdoc />
    public override void Unpin() { }

    /// <inheritdoc />
    protected override void Dispose(bool disposing) { }
}
