using System.Diagnostics;
using System.Globalization;
using AmqpConformance.TestSupport.Peers;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>What the default (ingest) mode measures, from its command line (<see cref="BenchmarkProgram"/>).</summary>
/// <param name="ClientCounts">Client counts (--clients).</param>
/// <param name="BodySizes">Body sizes in bytes (--sizes).</param>
/// <param name="Megabytes">About how many MB each measurement writes (--megabytes).</param>
/// <param name="Retain">FrameLogOptions.MaxRetainedFrames, or null to hold every frame (--retain).</param>
/// <param name="Rounds">Measurements per cell, raw and fake alternately (--rounds).</param>
/// <param name="TraceAllocations">Whether to sample the broker's allocations by type (--trace-allocations).</param>
internal sealed record IngestOptions(
    int[] ClientCounts,
    int[] BodySizes,
    long Megabytes,
    int? Retain,
    int Rounds,
    bool TraceAllocations
);

/// <summary>
/// Broker ingest benchmark, the program's default mode: pre-serialized basic.publish commands written by raw TCP
/// clients as fast as the socket takes them, into (a) a loopback server that reads and discards, and (b) the fake
/// broker, which parses, validates, records (digests only) and drops them (unroutable). Prints MB/s, msgs/s, the ratio
/// fake/raw, GC pause share and allocation per message and per frame, then one verdict line per goal: fake/raw &gt;=
/// 0.3 for bodies under 64 KiB and &gt;= 0.7 for larger ones, &lt;= 16 B allocated per frame, GC pauses &lt; 5 % of the
/// run. Each cell (body size, client count) is measured <see cref="IngestOptions.Rounds"/> times, raw and fake
/// alternately, every round printed; a goal is judged on each cell's median and then on the worst cell (the raw sink
/// alone moved 1.5x between identical runs on the CI machine). "gc pause" is the share of the fake broker's measurement
/// spent in garbage-collection pauses, "gen2" the full collections during it.
/// </summary>
internal static class IngestBenchmark
{
    private const int FrameMax = 131072;
    private const int SmallBody = 64 * 1024;

    public static async Task<int> RunAsync(IngestOptions options)
    {
        (int[] clientCounts, int[] bodySizes, long megabytes, int? retain, int rounds, bool traceAllocations) = options;
        using AllocationSampler? sampler = traceAllocations ? new AllocationSampler() : null;
        using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(10));
        CancellationToken ct = timeout.Token;

        Console.WriteLine(
            $"broker ingest, frame_max {FrameMax}, ~{megabytes} MB per measurement, {Environment.ProcessorCount} cores, {(Debugger.IsAttached ? "debugger" : "no debugger")}, "
                + (
                    retain is { } r
                        ? $"frame log holds the newest {r} frames per connection"
                        : "frame log holds every frame"
                )
        );

        // Warm-up (the JIT's tiers up to optimized code with dynamic PGO, socket buffers, pools): passes of ~16 MB per
        // size and client count, not printed, until a pass compiles no method (JitWarmUp). With as many clients as the
        // largest measurement, so the pools a connection draws from (receive blocks, body buffers) already hold what
        // that many connections use at once, and the measurement shows the steady state, not their first filling.
        var warmUp = await JitWarmUp.UntilSettledAsync(async () =>
        {
            foreach (int size in bodySizes)
            {
                var warm = new PublishBatch(size, Math.Max(1, 256 * 1024 / (size + 64)), FrameMax);
                foreach (int clients in clientCounts.Distinct())
                {
                    await MeasureRawAsync(warm, clients, Math.Max(1, 64 / clients), ct);
                    await MeasureFakeAsync(warm, clients, Math.Max(1, 64 / clients), retain, ct);
                }
            }
        });
        Console.WriteLine($"code: {JitWarmUp.CodeGeneration()}; warm-up: {warmUp}");
        Console.WriteLine(
            $"{"body", -8} {"clients", 7} {"raw MB/s", 10} {"raw msg/s", 12} {"fake MB/s", 10} {"fake msg/s", 12} {"fake/raw", 9} {"gc pause", 9} {"gen2", 5} {"alloc/msg", 10} {"alloc/frame", 11} {"raw cpu µs", 10} {"fake cpu µs", 11}"
        );

        double worstSmall = double.MaxValue,
            worstLarge = double.MaxValue,
            worstAllocPerFrame = 0,
            worstGcShare = 0;
        foreach (int size in bodySizes)
        {
            var batch = new PublishBatch(size, Math.Max(1, 4 * 1024 * 1024 / (size + 64)), FrameMax);
            foreach (int clients in clientCounts)
            {
                int repeats = (int)Math.Max(1, megabytes * 1024 * 1024 / clients / batch.Bytes.Length);
                var ratios = new List<double>();
                var allocations = new List<double>();
                var gcShares = new List<double>();
                for (int round = 0; round < rounds; round++)
                {
                    Result raw = await MeasureRawAsync(batch, clients, repeats, ct);
                    sampler?.Start();
                    Result fake = await MeasureFakeAsync(batch, clients, repeats, retain, ct);
                    var sampled = sampler is null ? null : await sampler.StopAsync();
                    double ratio = fake.MegabytesPerSecond / raw.MegabytesPerSecond;
                    double perFrame = fake.AllocatedBytes / (double)(fake.Messages * batch.FramesPerCommand);
                    double gcShare = fake.GcPause.TotalSeconds / fake.Elapsed.TotalSeconds;
                    ratios.Add(ratio);
                    allocations.Add(perFrame);
                    gcShares.Add(gcShare);
                    Console.WriteLine(
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"{SizeName(size), -8} {clients, 7} {raw.MegabytesPerSecond, 10:F0} {raw.MessagesPerSecond, 12:F0} {fake.MegabytesPerSecond, 10:F0} {fake.MessagesPerSecond, 12:F0} {ratio, 9:F2} {gcShare, 9:P0} {fake.Gen2Collections, 5} {fake.AllocatedBytes / (double)fake.Messages, 10:F0} {perFrame, 11:F1} {raw.CpuTime.TotalMicroseconds / raw.Messages, 10:F2} {fake.CpuTime.TotalMicroseconds / fake.Messages, 11:F2}"
                        )
                    );
                    foreach (var (type, bytes) in sampled?.Take(6) ?? [])
                        Console.WriteLine(
                            string.Create(
                                CultureInfo.InvariantCulture,
                                $"    sampled {bytes / (double)fake.Messages, 10:F1} B/msg  {type}"
                            )
                        );
                }
                double medianRatio = Median(ratios),
                    medianAllocation = Median(allocations),
                    medianGcShare = Median(gcShares);
                if (rounds > 1)
                    Console.WriteLine(
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"{"", -8} {"", 7} median of {rounds}: fake/raw {medianRatio:F2}, {medianAllocation:F1} B/frame, gc pause {medianGcShare:P0}"
                        )
                    );
                if (size < SmallBody)
                    worstSmall = Math.Min(worstSmall, medianRatio);
                else
                    worstLarge = Math.Min(worstLarge, medianRatio);
                worstAllocPerFrame = Math.Max(worstAllocPerFrame, medianAllocation);
                worstGcShare = Math.Max(worstGcShare, medianGcShare);
            }
        }
        string judged = rounds > 1 ? $" (each cell's median of {rounds})" : "";
        if (worstSmall != double.MaxValue)
            Verdict($"worst fake/raw, bodies under 64 KiB{judged}: {worstSmall:F2} (goal >= 0.30)", worstSmall >= 0.3);
        if (worstLarge != double.MaxValue)
            Verdict(
                $"worst fake/raw, bodies of 64 KiB and more{judged}: {worstLarge:F2} (goal >= 0.70)",
                worstLarge >= 0.7
            );
        Verdict(
            $"most allocated per frame{judged}: {worstAllocPerFrame:F1} B (goal <= 16 B; publishers' allocations included)",
            worstAllocPerFrame <= 16
        );
        Verdict($"largest GC pause share{judged}: {worstGcShare:P1} (goal < 5 %)", worstGcShare < 0.05);
        return 0;
    }

    private static double Median(List<double> values)
    {
        var sorted = values.Order().ToList();
        return sorted.Count % 2 == 1
            ? sorted[sorted.Count / 2]
            : (sorted[sorted.Count / 2 - 1] + sorted[sorted.Count / 2]) / 2;
    }

    private static void Verdict(string what, bool met) =>
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{what}: {(met ? "met" : "NOT met")}"));

    private static string SizeName(int size) =>
        size >= 1 << 20 && size % (1 << 20) == 0 ? $"{size >> 20} MiB"
        : size >= 1024 && size % 1024 == 0 ? $"{size >> 10} KiB"
        : $"{size} B";

    private static async Task<Result> MeasureRawAsync(
        PublishBatch batch,
        int clients,
        int repeats,
        CancellationToken ct
    )
    {
        await using var sink = new RawSink();
        var publishers = new List<AmqpTestClient>();
        for (int c = 0; c < clients; c++)
            publishers.Add(await AmqpTestClient.ConnectAsync("127.0.0.1", sink.Port, ct));
        long total = (long)batch.Bytes.Length * repeats * clients;
        Task reached = sink.ExpectAsync(total);
        TimeSpan cpuBefore = Process.GetCurrentProcess().TotalProcessorTime;
        var watch = Stopwatch.StartNew();
        await Task.WhenAll(publishers.Select(p => Task.Run(() => p.BlastAsync(batch.Bytes, repeats, ct), ct)));
        await reached.WaitAsync(ct);
        watch.Stop();
        TimeSpan cpu = Process.GetCurrentProcess().TotalProcessorTime - cpuBefore;
        foreach (var p in publishers)
            await p.DisposeAsync();
        return new Result(total, (long)batch.Commands * repeats * clients, watch.Elapsed) { CpuTime = cpu };
    }

    private static async Task<Result> MeasureFakeAsync(
        PublishBatch batch,
        int clients,
        int repeats,
        int? retain,
        CancellationToken ct
    )
    {
        await using FakeAmqpBroker broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions
            {
                FrameMax = FrameMax,
                HeartbeatSeconds = 0,
                KeepPublished = false,
                FrameLog = new AmqpConformance.Protocol.Recording.FrameLogOptions { MaxRetainedFrames = retain },
            },
            ct
        );
        var publishers = new List<AmqpTestClient>();
        for (int c = 0; c < clients; c++)
            publishers.Add(await AmqpTestClient.ConnectOpenAsync(broker.Endpoint, ct));
        long total = (long)batch.Bytes.Length * repeats * clients;
        TimeSpan pauseBefore = GC.GetTotalPauseDuration();
        int gen2Before = GC.CollectionCount(2);
        long allocatedBefore = GC.GetTotalAllocatedBytes(precise: true);
        TimeSpan cpuBefore = Process.GetCurrentProcess().TotalProcessorTime;
        var watch = Stopwatch.StartNew();
        await Task.WhenAll(
            publishers.Select(p =>
                Task.Run(
                    async () =>
                    {
                        await p.BlastAsync(batch.Bytes, repeats, ct);
                        await p.SyncAsync(ct); // returns once the broker has handled every byte before it
                    },
                    ct
                )
            )
        );
        watch.Stop();
        foreach (var p in publishers)
            await p.DisposeAsync();
        foreach (var connection in broker.Connections)
            if (connection.Log.Findings() is { Count: > 0 } findings)
                throw new InvalidOperationException($"the broker flagged the benchmark's own traffic: {findings[0]}");
        return new Result(total, (long)batch.Commands * repeats * clients, watch.Elapsed)
        {
            GcPause = GC.GetTotalPauseDuration() - pauseBefore,
            Gen2Collections = GC.CollectionCount(2) - gen2Before,
            AllocatedBytes = GC.GetTotalAllocatedBytes(precise: true) - allocatedBefore,
            CpuTime = Process.GetCurrentProcess().TotalProcessorTime - cpuBefore,
        };
    }

    /// <summary>One measurement.</summary>
    private readonly record struct Result(long Bytes, long Messages, TimeSpan Elapsed)
    {
        public double MegabytesPerSecond => Bytes / 1e6 / Elapsed.TotalSeconds;
        public double MessagesPerSecond => Messages / Elapsed.TotalSeconds;

        /// <summary>Time the process spent paused for garbage collection during the measurement (fake broker
        /// only).</summary>
        public TimeSpan GcPause { get; init; }

        /// <summary>Full (generation 2) collections during the measurement (fake broker only).</summary>
        public int Gen2Collections { get; init; }

        /// <summary>Bytes the process allocated during the measurement (fake broker only; includes the
        /// publishers').</summary>
        public long AllocatedBytes { get; init; }

        /// <summary>CPU time (user + kernel, all threads) the process used during the measurement, publishers' socket
        /// writes included. Printed per message; unlike MB/s it hardly depends on what else the machine runs.</summary>
        public TimeSpan CpuTime { get; init; }
    }
}
