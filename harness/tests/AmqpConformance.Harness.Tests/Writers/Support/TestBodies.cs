using System.Buffers.Binary;

namespace AmqpConformance.Harness.Tests.Writers.Support;

/// <summary>Bodies that say who published them: bytes 0-3 publisher, 4-7 sequence, then a pattern derived from both,
/// so a body on the wire can be checked byte for byte. Bodies shorter than 8 bytes are pattern only.</summary>
public static class TestBodies
{
    public const int IdLength = 8;

    public static byte[] Create(int publisher, int sequence, int length)
    {
        var body = new byte[length];
        Fill(body, publisher, sequence);
        return body;
    }

    public static void Fill(Span<byte> body, int publisher, int sequence)
    {
        for (int i = 0; i < body.Length; i++)
            body[i] = PatternByte(publisher, sequence, i);
        if (body.Length >= IdLength)
        {
            BinaryPrimitives.WriteInt32BigEndian(body, publisher);
            BinaryPrimitives.WriteInt32BigEndian(body[4..], sequence);
        }
    }

    public static (int Publisher, int Sequence) Identify(ReadOnlySpan<byte> body) =>
        (BinaryPrimitives.ReadInt32BigEndian(body), BinaryPrimitives.ReadInt32BigEndian(body[4..]));

    /// <summary>Whether <paramref name="body"/> is exactly what <see cref="Create"/> made for its own ids and
    /// length.</summary>
    public static bool IsIntact(ReadOnlySpan<byte> body)
    {
        if (body.Length < IdLength)
            return true;
        var (p, s) = Identify(body);
        for (int i = IdLength; i < body.Length; i++)
            if (body[i] != PatternByte(p, s, i))
                return false;
        return true;
    }

    private static byte PatternByte(int publisher, int sequence, int i) =>
        (byte)(publisher * 131 + sequence * 7 + i * 13 + (i >> 8) + 1);
}
