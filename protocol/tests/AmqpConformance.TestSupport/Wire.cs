using System.Buffers;

namespace AmqpConformance.TestSupport;

/// <summary>Small helpers for writing expected wire bytes as hex and for capturing encoder output.</summary>
public static class Wire
{
    /// <summary>Hex digits (spaces and '|' allowed as separators) to bytes.</summary>
    public static byte[] Hex(string hex) =>
        Convert.FromHexString(hex.Replace(" ", "").Replace("|", "").Replace("\n", ""));

    /// <summary>Bytes as spaced upper-case hex, so failing assertions show readable diffs.</summary>
    public static string ToHex(ReadOnlySpan<byte> bytes) => Convert.ToHexString(bytes);

    /// <summary>Runs <paramref name="write"/> against a fresh buffer writer and returns what it wrote.</summary>
    public static byte[] Capture(Action<IBufferWriter<byte>> write)
    {
        var buffer = new ArrayBufferWriter<byte>();
        write(buffer);
        return buffer.WrittenSpan.ToArray();
    }

    /// <summary>A sequence made of the given segments, in order (to test multi-segment parsing).</summary>
    public static ReadOnlySequence<byte> Segmented(params byte[][] segments) =>
        Segmented(segments.Select(s => (ReadOnlyMemory<byte>)s).ToArray());

    /// <summary>A sequence made of the given memories, in order (memory that is not an array, too).</summary>
    public static ReadOnlySequence<byte> Segmented(params ReadOnlyMemory<byte>[] segments)
    {
        if (segments.Length == 0)
            return ReadOnlySequence<byte>.Empty;
        var first = new Segment(segments[0], 0);
        var last = first;
        for (int i = 1; i < segments.Length; i++)
            last = last.Append(segments[i]);
        return new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length);
    }

    /// <summary>Splits <paramref name="bytes"/> into one segment per byte.</summary>
    public static ReadOnlySequence<byte> OneBytePerSegment(byte[] bytes) =>
        Segmented(bytes.Select(b => new[] { b }).ToArray());

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(ReadOnlyMemory<byte> memory, long runningIndex)
        {
            Memory = memory;
            RunningIndex = runningIndex;
        }

        public Segment Append(ReadOnlyMemory<byte> memory)
        {
            var next = new Segment(memory, RunningIndex + Memory.Length);
            Next = next;
            return next;
        }
    }
}
