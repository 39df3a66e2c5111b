using System.Buffers;
using System.IO.Hashing;

namespace AmqpConformance.Protocol.Recording;

/// <summary>
/// The digest <see cref="FrameRecord.PayloadDigest"/> holds for body frames: XXH3 (64-bit) of the payload with seed 0
/// (Yann Collet's xxHash, XXH3 variant, as specified in the xxHash repository's doc/xxhash_spec.md), as an unsigned
/// 64-bit number; the JSON Lines export writes it as 16 lowercase hex digits, which is XXH3's canonical (big-endian)
/// form, so <c>xxhsum -H3</c> prints the same digits for the same bytes.
/// </summary>
/// <remarks>A fingerprint for spotting changed or swapped bodies, not a cryptographic hash. Computed by
/// System.IO.Hashing's <see cref="XxHash3"/>, whose vectorised loop ran at 8.9–15.1 GB/s on 1 MiB here against XXH64's
/// 2.5–3.3 GB/s (the broker benchmark's <c>digest</c> mode, docs/benchmarks.md), so the broker can digest every body
/// frame it records without the digest being most of the cost of a large body. Every producer and checker of
/// <see cref="FrameRecord.PayloadDigest"/> goes through this one entry point; none allocates.</remarks>
public static class FrameDigest
{
    /// <summary>The digest of <paramref name="payload"/>.</summary>
    public static ulong Compute(ReadOnlySpan<byte> payload) => XxHash3.HashToUInt64(payload);

    /// <summary>The digest of a payload held in pieces (the pipe segments a frame arrived in): equal to
    /// <see cref="Compute(ReadOnlySpan{byte})"/> of the pieces laid end to end.</summary>
    public static ulong Compute(in ReadOnlySequence<byte> payload)
    {
        if (payload.IsSingleSegment)
            return Compute(payload.FirstSpan);
        var state = t_pieces ??= new XxHash3();
        state.Reset();
        foreach (var segment in payload)
            state.Append(segment.Span);
        return state.GetCurrentHashAsUInt64();
    }

    /// <summary>One incremental hasher per thread, reset before each use, so digesting a frame that spans pipe segments
    /// (every large body frame does) allocates nothing after a thread's first.</summary>
    [ThreadStatic]
    private static XxHash3? t_pieces;

    /// <summary>XXH3 (64-bit) of <paramref name="data"/> with <paramref name="seed"/> (the digest uses seed 0; other
    /// seeds are for checking against other implementations).</summary>
    public static ulong Compute(ReadOnlySpan<byte> data, ulong seed) =>
        XxHash3.HashToUInt64(data, unchecked((long)seed));
}
