using System.Buffers.Binary;
using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// The body bytes of a generated call: a pseudo-random pattern determined by the scenario's seed and the call's id
/// alone, so a replayed case publishes the same bytes, and free of <see cref="CallRecord.PoisonByte"/>, so poison on
/// the wire is unambiguous.
/// </summary>
/// <remarks>SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014) written 8 bytes
/// per step, then the poison byte replaced with a vectorised span replace. A case generates a few hundred kilobytes of
/// bodies; the seeded <see cref="Random"/> it replaced spent about 2.5 ms of every case on them (measured in
/// docs/benchmarks.md).</remarks>
internal static class BodyPattern
{
    /// <summary>What <see cref="CallRecord.PoisonByte"/> becomes in a body.</summary>
    public const byte PoisonStandIn = 0x5A;

    /// <summary>The <paramref name="length"/> body bytes of call <paramref name="callId"/> in a scenario with
    /// <paramref name="seed"/>.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="length"/> is negative.</exception>
    public static byte[] Create(int seed, int callId, int length)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        var bytes = GC.AllocateUninitializedArray<byte>(length);
        Fill(bytes, seed, callId);
        return bytes;
    }

    /// <summary>Fills <paramref name="destination"/> with the pattern of call <paramref name="callId"/> (the first
    /// bytes of a longer body of the same call are the same).</summary>
    public static void Fill(Span<byte> destination, int seed, int callId)
    {
        ulong state = ((ulong)(uint)seed << 32) | (uint)callId;
        var rest = destination;
        while (rest.Length >= sizeof(ulong))
        {
            BinaryPrimitives.WriteUInt64LittleEndian(rest, Next(ref state));
            rest = rest[sizeof(ulong)..];
        }
        if (!rest.IsEmpty)
        {
            Span<byte> last = stackalloc byte[sizeof(ulong)];
            BinaryPrimitives.WriteUInt64LittleEndian(last, Next(ref state));
            last[..rest.Length].CopyTo(rest);
        }
        destination.Replace(CallRecord.PoisonByte, PoisonStandIn);
    }

    private static ulong Next(ref ulong state)
    {
        ulong z = state += 0x9E3779B97F4A7C15UL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        return z ^ (z >> 31);
    }
}
