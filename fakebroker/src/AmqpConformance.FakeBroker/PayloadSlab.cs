using System.Buffers;

namespace AmqpConformance.FakeBroker;

/// <summary>Copies small payloads (method and header frames the log keeps) into shared 64 KiB chunks instead of one
/// array each, so recording a frame allocates one object (its record) rather than two, and the garbage collector has
/// half as many long-lived objects to trace and promote. Single-threaded: one instance per appending loop.</summary>
/// <remarks>The memory handed out is never written again (a chunk is only appended to, then abandoned when full), so
/// it is as immutable as a private array. A chunk stays alive while any record refers to a slice of it.</remarks>
internal sealed class PayloadSlab
{
    private const int ChunkSize = 64 * 1024;

    /// <summary>Payloads longer than this get an array of their own (they would waste too much of a chunk).</summary>
    private const int MaxSlabbed = 1024;

    private byte[] _chunk = [];
    private int _used;

    /// <summary>A copy of <paramref name="payload"/> that the caller may keep for as long as it likes.</summary>
    public ReadOnlyMemory<byte> Copy(in ReadOnlySequence<byte> payload)
    {
        long length = payload.Length;
        if (length == 0) return ReadOnlyMemory<byte>.Empty;
        if (length > MaxSlabbed) return payload.ToArray();
        int n = (int)length;
        if (_chunk.Length - _used < n)
        {
            _chunk = GC.AllocateUninitializedArray<byte>(ChunkSize);
            _used = 0;
        }
        var slice = _chunk.AsMemory(_used, n);
        payload.CopyTo(slice.Span);
        _used += n;
        return slice;
    }
}
