using System.Buffers.Binary;
using AmqpConformance.Protocol;

namespace AmqpConformance.Cli.Fuzzing;

/// <summary>
/// Breaks a valid session the ways a buggy or hostile client would, from a seeded <see cref="Random"/>: bit flips,
/// truncation, size fields that lie, reordered, dropped and duplicated frames, garbage between or inside frames, huge
/// claims (frame sizes, declared body sizes, length fields), wrong frame types, channels and frame-end octets. One in
/// eight sessions is left valid. Returns the bytes to send and what was done, for the report.
/// </summary>
internal static class SessionMutator
{
    /// <summary>Mutates <paramref name="frames"/> (element 0 the protocol header, then whole frames; changed in place)
    /// and returns the byte stream plus a short description of each mutation.</summary>
    public static (byte[] Bytes, string Description) Mutate(List<byte[]> frames, Random random)
    {
        var done = new List<string>();
        int count = random.Next(8) == 0 ? 0 : random.Next(1, 4);
        byte[]? flat = null;
        for (int m = 0; m < count; m++)
        {
            int kind = random.Next(12);
            if (kind >= 10 || flat is not null || frames.Count < 2)
            {
                // Stream-level mutations; once the stream is flat, later ones are stream-level too.
                flat ??= Flatten(frames);
                done.Add(kind % 2 == 0 ? FlipBits(flat, random) : Truncate(ref flat, random));
                continue;
            }
            int i = random.Next(1, frames.Count);
            done.Add(
                kind switch
                {
                    0 => SizeLie(frames[i], random),
                    1 => Swap(frames, random),
                    2 => Drop(frames, i),
                    3 => Duplicate(frames, i, random),
                    4 => InsertGarbage(frames, i, random),
                    5 => HugeClaim(frames[i], random),
                    6 => CorruptPayload(frames[i], random),
                    7 => SetFrameEnd(frames[i], random),
                    8 => SetChannel(frames[i], random),
                    _ => SetType(frames[i], random),
                }
            );
        }
        return (flat ?? Flatten(frames), done.Count == 0 ? "valid" : string.Join(", ", done));
    }

    private static byte[] Flatten(List<byte[]> frames)
    {
        var all = new byte[frames.Sum(f => f.Length)];
        int at = 0;
        foreach (byte[] f in frames)
        {
            f.CopyTo(all, at);
            at += f.Length;
        }
        return all;
    }

    private static bool IsFrame(byte[] f) => f.Length >= AmqpConstants.FrameOverhead;

    private static string FlipBits(byte[] flat, Random random)
    {
        if (flat.Length == 0)
            return "flip (nothing left)";
        int bits = random.Next(1, 9);
        for (int b = 0; b < bits; b++)
        {
            int at = random.Next(flat.Length);
            flat[at] ^= (byte)(1 << random.Next(8));
        }
        return $"flip {bits} bit(s)";
    }

    private static string Truncate(ref byte[] flat, Random random)
    {
        int keep = random.Next(flat.Length);
        flat = flat[..keep];
        return $"truncate at {keep}";
    }

    private static string SizeLie(byte[] frame, Random random)
    {
        if (!IsFrame(frame))
            return "size lie (skipped)";
        uint actual = BinaryPrimitives.ReadUInt32BigEndian(frame.AsSpan(3));
        uint lie = random.Next(3) switch
        {
            0 => actual + (uint)random.Next(1, 16),
            1 => actual > 0 ? actual - (uint)random.Next(1, (int)Math.Min(actual, 16u) + 1) : 1,
            _ => (uint)random.Next(0, 300_000),
        };
        BinaryPrimitives.WriteUInt32BigEndian(frame.AsSpan(3), lie);
        return $"size {actual} claimed as {lie}";
    }

    private static string Swap(List<byte[]> frames, Random random)
    {
        int a = random.Next(1, frames.Count),
            b = random.Next(1, frames.Count);
        (frames[a], frames[b]) = (frames[b], frames[a]);
        return $"swap frames {a} and {b}";
    }

    private static string Drop(List<byte[]> frames, int i)
    {
        frames.RemoveAt(i);
        return $"drop frame {i}";
    }

    private static string Duplicate(List<byte[]> frames, int i, Random random)
    {
        int times = random.Next(1, 4);
        for (int t = 0; t < times; t++)
            frames.Insert(i, (byte[])frames[i].Clone());
        return $"repeat frame {i} x{times}";
    }

    private static string InsertGarbage(List<byte[]> frames, int i, Random random)
    {
        var garbage = new byte[random.Next(1, 65)];
        random.NextBytes(garbage);
        frames.Insert(i, garbage);
        return $"{garbage.Length} garbage bytes before frame {i}";
    }

    private static string HugeClaim(byte[] frame, Random random)
    {
        if (!IsFrame(frame))
            return "huge claim (skipped)";
        switch (random.Next(3))
        {
            case 0:
                uint size = random.Next(2) == 0 ? uint.MaxValue : 0x7FFF_FFF0u;
                BinaryPrimitives.WriteUInt32BigEndian(frame.AsSpan(3), size);
                return $"frame claims {size} bytes";
            case 1 when frame[0] == (byte)FrameType.Header && frame.Length >= 7 + 12 + 1:
                ulong body = random.Next(2) == 0 ? ulong.MaxValue : 1UL << 40;
                BinaryPrimitives.WriteUInt64BigEndian(frame.AsSpan(7 + 4), body);
                return $"header declares a {body}-byte body";
            default:
                // A length field somewhere in the payload (short string, long string, table): 0xFF... there.
                int payload = frame.Length - AmqpConstants.FrameOverhead;
                if (payload < 1)
                    return "huge claim (no payload)";
                int at = 7 + random.Next(payload);
                int n = Math.Min(4, frame.Length - 1 - at);
                frame.AsSpan(at, n).Fill(0xFF);
                return $"0xFF x{n} at payload offset {at - 7}";
        }
    }

    private static string CorruptPayload(byte[] frame, Random random)
    {
        int payload = frame.Length - AmqpConstants.FrameOverhead;
        if (!IsFrame(frame) || payload < 1)
            return "corrupt payload (skipped)";
        int n = random.Next(1, 4);
        for (int k = 0; k < n; k++)
            frame[7 + random.Next(payload)] = (byte)random.Next(256);
        return $"corrupt {n} payload byte(s)";
    }

    private static string SetFrameEnd(byte[] frame, Random random)
    {
        if (!IsFrame(frame))
            return "frame end (skipped)";
        frame[^1] = (byte)random.Next(256);
        return $"frame end 0x{frame[^1]:x2}";
    }

    private static string SetChannel(byte[] frame, Random random)
    {
        if (!IsFrame(frame))
            return "channel (skipped)";
        ushort channel = random.Next(3) switch
        {
            0 => 0,
            1 => ushort.MaxValue,
            _ => (ushort)random.Next(1, 5000),
        };
        BinaryPrimitives.WriteUInt16BigEndian(frame.AsSpan(1), channel);
        return $"channel {channel}";
    }

    private static string SetType(byte[] frame, Random random)
    {
        if (!IsFrame(frame))
            return "type (skipped)";
        frame[0] = (byte)random.Next(256);
        return $"type {frame[0]}";
    }
}
