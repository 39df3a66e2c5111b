using System.Diagnostics;
using System.IO.Hashing;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>
/// <c>digest</c> mode: how fast the frame log's body digest runs, side by side with XXH64 (the digest before JSON Lines
/// format 2), in GB/s (10^9 bytes) over the same buffer: 256 B, one 128 KiB body frame (frame_max 131072 less its
/// header and end) and 1 MiB, as one contiguous span and as the 64 KiB pipe segments a large frame arrives in. The two
/// functions alternate within each round, so load on the machine shows in both. Options (parsed in
/// <see cref="BenchmarkProgram"/>): <c>--rounds 3 --gigabytes 2</c>.
/// </summary>
internal static class DigestBenchmark
{
    public static int Run(int rounds, double gigabytes)
    {
        Console.WriteLine(
            $"body digest: FrameDigest (XXH3) against XXH64, ~{gigabytes} GB per cell, {rounds} rounds, {Environment.ProcessorCount} cores"
        );
        Console.WriteLine(
            $"{"bytes", 8} {"round", 6} {"XXH3 GB/s", 10} {"XXH64 GB/s", 11} {"XXH3, 64 KiB pieces", 20} {"XXH64, pieces", 14}"
        );
        var xxh64 = new XxHash64();
        foreach (int size in new[] { 256, 131064, 1 << 20 })
        {
            var data = new byte[size];
            new Random(size).NextBytes(data);
            var pieces = TestSupport.Wire.Segmented(data.Chunk(65536).ToArray());
            int iterations = (int)Math.Max(1, gigabytes * 1e9 / size);
            for (int round = 1; round <= rounds; round++)
            {
                double xxh3 = Rate(iterations, size, () => FrameDigest.Compute(data));
                double old = Rate(iterations, size, () => XxHash64.HashToUInt64(data));
                double xxh3Pieces = Rate(iterations, size, () => FrameDigest.Compute(pieces));
                double oldPieces = Rate(iterations, size, () =>
                {
                    xxh64.Reset();
                    foreach (var piece in pieces)
                        xxh64.Append(piece.Span);
                    return xxh64.GetCurrentHashAsUInt64();
                });
                Console.WriteLine(
                    FormattableString.Invariant(
                        $"{size, 8} {round, 6} {xxh3, 10:F2} {old, 11:F2} {xxh3Pieces, 20:F2} {oldPieces, 14:F2}"
                    )
                );
            }
        }
        return 0;
    }

    private static double Rate(int iterations, int size, Func<ulong> digest)
    {
        ulong sink = 0;
        var clock = Stopwatch.StartNew();
        for (int i = 0; i < iterations; i++)
            sink ^= digest();
        double seconds = clock.Elapsed.TotalSeconds;
        GC.KeepAlive(sink);
        return (double)iterations * size / seconds / 1e9;
    }
}
