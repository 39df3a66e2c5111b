using System.Buffers;
using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;

namespace AmqpConformance.Protocol.Recording;

/// <summary>
/// The digest <see cref="FrameRecord.PayloadDigest"/> holds for body frames: XXH64 of the payload with seed 0
/// (Yann Collet's xxHash, 64-bit variant, as specified in the xxHash repository's doc/xxhash_spec.md), as an unsigned
/// 64-bit number; the JSON Lines export writes it as 16 lowercase hex digits, which is XXH64's canonical (big-endian)
/// form, so <c>xxh64sum</c> (<c>xxhsum -H1</c>) prints the same digits for the same bytes.
/// </summary>
/// <remarks>A fingerprint for spotting changed or swapped bodies, not a cryptographic hash: it runs at memory speed,
/// so the broker can digest every body frame it records without slowing ingest. Every producer and checker of
/// <see cref="FrameRecord.PayloadDigest"/> uses this one definition.</remarks>
public static class FrameDigest
{
    private const ulong Prime1 = 0x9E3779B185EBCA87UL;
    private const ulong Prime2 = 0xC2B2AE3D27D4EB4FUL;
    private const ulong Prime3 = 0x165667B19E3779F9UL;
    private const ulong Prime4 = 0x85EBCA77C2B2AE63UL;
    private const ulong Prime5 = 0x27D4EB2F165667C5UL;
    private const int StripeLength = 32;

    /// <summary>The digest of <paramref name="payload"/>.</summary>
    public static ulong Compute(ReadOnlySpan<byte> payload) => Compute(payload, seed: 0);

    /// <summary>The digest of a payload held in pieces (the pipe segments a frame arrived in): equal to
    /// <see cref="Compute(ReadOnlySpan{byte})"/> of the pieces laid end to end.</summary>
    public static ulong Compute(in ReadOnlySequence<byte> payload)
    {
        if (payload.IsSingleSegment) return Compute(payload.FirstSpan);
        var state = new State(seed: 0);
        foreach (var segment in payload) state.Append(segment.Span);
        return state.Finish();
    }

    /// <summary>XXH64 of <paramref name="data"/> with <paramref name="seed"/> (the digest uses seed 0; other seeds are
    /// for checking against the specification's test vectors).</summary>
    public static ulong Compute(ReadOnlySpan<byte> data, ulong seed)
    {
        ulong acc;
        int offset = 0;
        if (data.Length >= StripeLength)
        {
            ulong v1 = seed + Prime1 + Prime2, v2 = seed + Prime2, v3 = seed, v4 = seed - Prime1;
            offset = Stripes(data, ref v1, ref v2, ref v3, ref v4);
            acc = Converge(v1, v2, v3, v4);
        }
        else
        {
            acc = seed + Prime5;
        }
        acc += (ulong)data.Length;
        return Avalanche(Tail(acc, data[offset..]));
    }

    /// <summary>Consumes every whole 32-byte stripe; returns how many bytes that was.</summary>
    private static int Stripes(ReadOnlySpan<byte> data, ref ulong v1, ref ulong v2, ref ulong v3, ref ulong v4)
    {
        ulong a = v1, b = v2, c = v3, d = v4;
        int offset = 0;
        int last = data.Length - StripeLength;
        ref byte start = ref System.Runtime.InteropServices.MemoryMarshal.GetReference(data);
        while (offset <= last)
        {
            a = Round(a, ReadLane(ref start, offset));
            b = Round(b, ReadLane(ref start, offset + 8));
            c = Round(c, ReadLane(ref start, offset + 16));
            d = Round(d, ReadLane(ref start, offset + 24));
            offset += StripeLength;
        }
        v1 = a; v2 = b; v3 = c; v4 = d;
        return offset;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong ReadLane(ref byte start, int offset)
    {
        ulong lane = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref start, offset));
        return BitConverter.IsLittleEndian ? lane : BinaryPrimitives.ReverseEndianness(lane);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Round(ulong acc, ulong lane)
    {
        acc += lane * Prime2;
        acc = BitOperations.RotateLeft(acc, 31);
        return acc * Prime1;
    }

    private static ulong Converge(ulong v1, ulong v2, ulong v3, ulong v4)
    {
        ulong acc = BitOperations.RotateLeft(v1, 1) + BitOperations.RotateLeft(v2, 7)
                  + BitOperations.RotateLeft(v3, 12) + BitOperations.RotateLeft(v4, 18);
        acc = Merge(acc, v1);
        acc = Merge(acc, v2);
        acc = Merge(acc, v3);
        return Merge(acc, v4);
    }

    private static ulong Merge(ulong acc, ulong lane)
    {
        acc ^= Round(0, lane);
        return acc * Prime1 + Prime4;
    }

    /// <summary>The last 0..31 bytes: 8 at a time, then 4, then one by one.</summary>
    private static ulong Tail(ulong acc, ReadOnlySpan<byte> rest)
    {
        while (rest.Length >= 8)
        {
            acc ^= Round(0, BinaryPrimitives.ReadUInt64LittleEndian(rest));
            acc = BitOperations.RotateLeft(acc, 27) * Prime1 + Prime4;
            rest = rest[8..];
        }
        if (rest.Length >= 4)
        {
            acc ^= BinaryPrimitives.ReadUInt32LittleEndian(rest) * Prime1;
            acc = BitOperations.RotateLeft(acc, 23) * Prime2 + Prime3;
            rest = rest[4..];
        }
        foreach (byte b in rest)
        {
            acc ^= b * Prime5;
            acc = BitOperations.RotateLeft(acc, 11) * Prime1;
        }
        return acc;
    }

    private static ulong Avalanche(ulong acc)
    {
        acc ^= acc >> 33;
        acc *= Prime2;
        acc ^= acc >> 29;
        acc *= Prime3;
        acc ^= acc >> 32;
        return acc;
    }

    /// <summary>XXH64 over data that arrives in pieces: whole stripes are consumed straight from each piece, and a
    /// stripe split across pieces is gathered in a 32-byte buffer first.</summary>
    private struct State(ulong seed)
    {
        private ulong _v1 = seed + Prime1 + Prime2, _v2 = seed + Prime2, _v3 = seed, _v4 = seed - Prime1;
        private readonly ulong _seed = seed;
        private long _total;
        private Stripe _buffer;
        private int _buffered;

        [InlineArray(StripeLength)]
        private struct Stripe { private byte _first; }

        public void Append(ReadOnlySpan<byte> data)
        {
            _total += data.Length;
            Span<byte> buffer = _buffer;
            if (_buffered > 0)
            {
                int take = Math.Min(StripeLength - _buffered, data.Length);
                data[..take].CopyTo(buffer[_buffered..]);
                _buffered += take;
                data = data[take..];
                if (_buffered < StripeLength) return;
                Stripes(buffer, ref _v1, ref _v2, ref _v3, ref _v4);
                _buffered = 0;
            }
            int consumed = Stripes(data, ref _v1, ref _v2, ref _v3, ref _v4);
            data[consumed..].CopyTo(buffer);
            _buffered = data.Length - consumed;
        }

        public ulong Finish()
        {
            ulong acc = _total >= StripeLength ? Converge(_v1, _v2, _v3, _v4) : _seed + Prime5;
            acc += (ulong)_total;
            ReadOnlySpan<byte> buffer = _buffer;
            return Avalanche(Tail(acc, buffer[.._buffered]));
        }
    }
}
