using System.Security.Cryptography;

namespace AmqpConformance.FakeBroker.Tests.Interop;

/// <summary>The message bodies the interop scripts publish: byte j of message k is (j*7 + k*13 + (j >> 8)) mod 256.
/// The scripts print each body's SHA-256, so a drift between the three copies of the formula fails the test.</summary>
internal static class InteropPattern
{
    public static byte[] Body(int k, int length)
    {
        var body = new byte[length];
        for (int j = 0; j < length; j++)
            body[j] = (byte)((j * 7 + k * 13 + (j >> 8)) & 0xFF);
        return body;
    }

    public static string Sha256Hex(ReadOnlySpan<byte> bytes) => Convert.ToHexStringLower(SHA256.HashData(bytes));

    /// <summary>The frame log's digest of a body slice (the log's one definition, XXH3).</summary>
    public static ulong FrameDigest(ReadOnlySpan<byte> payload) => Protocol.Recording.FrameDigest.Compute(payload);
}
