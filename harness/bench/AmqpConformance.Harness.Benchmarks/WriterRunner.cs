using System.Buffers;
using System.Diagnostics;
using System.Globalization;
using AmqpConformance.Harness.Pooling;

namespace AmqpConformance.Harness.Benchmarks;

/// <summary>What the custom runner measures, from its command line (<see cref="BenchmarkProgram"/>).</summary>
/// <param name="Quick">A short run: 1 measured iteration, 32 MiB per scenario (--quick).</param>
/// <param name="Tracking">Rent from a TrackingArrayPool, its ledger checked at the end, instead of
/// ArrayPool&lt;byte&gt;.Shared (--tracking).</param>
/// <param name="NoPeak">Skip the peak-memory scenario (--no-peak).</param>
/// <param name="NoThroughput">Skip the throughput rows and the costly-flush section (--no-throughput).</param>
/// <param name="BodySizes">The throughput rows' body sizes (--body).</param>
/// <param name="PublisherCounts">The throughput rows' publisher counts (--publishers).</param>
/// <param name="FlushCostMicros">CPU cost per flush in the costly-flush section, 0 to skip it
/// (--flush-cost-us).</param>
internal sealed record RunnerOptions(
    bool Quick,
    bool Tracking,
    bool NoPeak,
    bool NoThroughput,
    int[] BodySizes,
    int[] PublisherCounts,
    int FlushCostMicros
);

/// <summary>The custom runner (every mode but <c>bdn</c>): the throughput matrix, the costly-flush section, the PR
/// #1912 peak-memory scenario, then the goals.</summary>
internal sealed class WriterRunner(RunnerOptions options)
{
    private const int FrameMax = BenchMode.FrameMax;
    private readonly long _targetBytes = options.Quick ? 32L << 20 : 128L << 20;
    private readonly int _iterations = options.Quick ? 1 : 3;
    private ArrayPool<byte> _pool = ArrayPool<byte>.Shared;

    public async Task<int> RunAsync()
    {
        CultureInfo.CurrentCulture = CultureInfo.InvariantCulture;
        bool quick = options.Quick,
            tracking = options.Tracking;
        int[] bodySizes = options.BodySizes,
            publisherCounts = options.PublisherCounts;
        int flushCostMicros = options.FlushCostMicros;
        var trackingPool = tracking ? new TrackingArrayPool() : null;
        _pool = trackingPool ?? ArrayPool<byte>.Shared;

        Console.WriteLine($"# AmqpConformance writer benchmarks ({(quick ? "quick" : "full")} run)");
        Console.WriteLine();
        Console.WriteLine(
            $"{Environment.ProcessorCount} logical cores, {RuntimeInformationText()}, frame_max {FrameMax}, pool: {(tracking ? "TrackingArrayPool" : "ArrayPool<byte>.Shared")}, "
                + $"{_iterations} measured iteration(s) of ~{_targetBytes >> 20} MiB per row (median shown), after one warmup; sink: in-memory pipe "
                + "(64 KiB segments, pause at 1 MiB) drained and discarded on another task. Each publish hands the writer a command whose "
                + "method+header frames are copied from a pre-serialized image into a pool rental (codec cost left out; it is the same for every mode)."
        );
        Console.WriteLine();

        var rates = new Dictionary<(string Mode, int Body, int Publishers), double>();
        if (!options.NoThroughput)
        {
            Console.WriteLine(
                "| body | publishers | mode | msgs/s | MiB/s | vs raw | alloc B/publish | publishes/flush |"
            );
            Console.WriteLine("|---:|---:|---|---:|---:|---:|---:|---:|");
            foreach (int bodySize in bodySizes)
            foreach (int publishers in publisherCounts)
            {
                var rows = new List<(BenchMode Mode, double Rate, double Alloc, double PerFlush)>();
                foreach (var mode in BenchMode.All)
                {
                    var (rate, alloc, perFlush) = await MeasureAsync(mode, bodySize, publishers);
                    rates[(mode.Name, bodySize, publishers)] = rate;
                    rows.Add((mode, rate, alloc, perFlush));
                }
                double raw = rows.Single(r => r.Mode == BenchMode.Raw).Rate;
                foreach (var (mode, rate, alloc, perFlush) in rows)
                    Console.WriteLine(
                        $"| {Size(bodySize)} | {publishers} | {mode.Name} | {rate:N0} | {rate * bodySize / (1 << 20):N1} | {rate / raw:0.00}x | {alloc:N0} | {perFlush:0.0} |"
                    );
            }
            Console.WriteLine();
        }

        if (!options.NoThroughput && flushCostMicros > 0)
        {
            var flushCost = TimeSpan.FromTicks(flushCostMicros * TimeSpan.TicksPerMicrosecond);
            Console.WriteLine(
                $"Costly flush: the same sink, but every flush first burns {flushCostMicros} us of CPU (a stand-in for a socket send call), 16 publishers."
            );
            Console.WriteLine();
            Console.WriteLine("| body | publishers | mode | msgs/s | vs raw | publishes/flush |");
            Console.WriteLine("|---:|---:|---|---:|---:|---:|");
            foreach (int bodySize in new[] { 256, 16 * 1024 })
            {
                var rows = new List<(BenchMode Mode, double Rate, double PerFlush)>();
                foreach (var mode in BenchMode.All)
                {
                    var (rate, _, perFlush) = await MeasureAsync(mode, bodySize, 16, flushCost, _targetBytes / 8);
                    rows.Add((mode, rate, perFlush));
                }
                double raw = rows.Single(r => r.Mode == BenchMode.Raw).Rate;
                foreach (var (mode, rate, perFlush) in rows)
                    Console.WriteLine(
                        $"| {Size(bodySize)} | 16 | {mode.Name} | {rate:N0} | {rate / raw:0.00}x | {perFlush:0.0} |"
                    );
            }
            Console.WriteLine();
        }

        var peaks = new Dictionary<string, (long Heap, long WorkingSet, double Seconds)>();
        if (!options.NoPeak)
        {
            const int publishers = 16,
                perPublisher = 100,
                bodySize = 1 << 20;
            Console.WriteLine(
                $"PR #1912 scenario: {publishers} publishers x {perPublisher} x {Size(bodySize)}. Peak = highest sample minus the baseline taken after a full GC "
                    + "(bodies already allocated); heap = GC.GetTotalMemory(false), working set = Environment.WorkingSet, sampled every 2 ms on a dedicated thread."
            );
            Console.WriteLine();
            Console.WriteLine("| mode | peak managed heap | peak working set | time | vs Background heap |");
            Console.WriteLine("|---|---:|---:|---:|---:|");
            foreach (var mode in BenchMode.All)
            {
                var payloads = mode.Prepare(publishers, bodySize, FrameMax);
                peaks[mode.Name] = await MeasurePeakAsync(mode, payloads, perPublisher);
            }
            long backgroundHeap = Math.Max(1, peaks["Background"].Heap);
            foreach (var (name, (heap, ws, seconds)) in peaks)
                Console.WriteLine(
                    $"| {name} | {Mib(heap)} | {Mib(ws)} | {seconds:0.00} s | {100.0 * heap / backgroundHeap:0.0}% |"
                );
            Console.WriteLine();
        }

        Console.WriteLine("Goals:");
        if (rates.ContainsKey(("Coalescing", 256, 16)))
        {
            double ratio = rates[("Coalescing", 256, 16)] / rates[("Inline", 256, 16)];
            Console.WriteLine(
                $"- coalescing >= 1.5x inline at 16 x 256 B: {ratio:0.00}x -> {(ratio >= 1.5 ? "met" : "NOT met")}"
            );
        }
        if (rates.Count > 0)
        {
            foreach (int p in publisherCounts.Where(p => rates.ContainsKey(("Raw", 1 << 20, p))))
            {
                double raw = rates[("Raw", 1 << 20, p)];
                double inline = rates[("Inline", 1 << 20, p)] / raw,
                    coalescing = rates[("Coalescing", 1 << 20, p)] / raw;
                Console.WriteLine(
                    $"- zero-copy >= 0.8x raw at 1 MiB, {p} publisher(s): inline {inline:0.00}x, coalescing {coalescing:0.00}x -> {(inline >= 0.8 && coalescing >= 0.8 ? "met" : "NOT met")}"
                );
            }
        }
        if (peaks.Count > 0)
        {
            double bg = Math.Max(1, peaks["Background"].Heap);
            double inline = peaks["Inline"].Heap / bg,
                coalescing = peaks["Coalescing"].Heap / bg;
            Console.WriteLine(
                $"- inline and coalescing peak heap <= 5% of background's: inline {inline:P1}, coalescing {coalescing:P1} -> {(inline <= 0.05 && coalescing <= 0.05 ? "met" : "NOT met")}"
            );
        }
        if (trackingPool is not null)
        {
            var report = trackingPool.Verify();
            Console.WriteLine($"- tracking pool after all runs: {(report.IsClean ? "clean" : report.ToString())}");
        }
        return 0;
    }

    private async Task<(double Rate, double AllocPerPublish, double PublishesPerFlush)> MeasureAsync(
        BenchMode mode,
        int bodySize,
        int publishers,
        TimeSpan flushCost = default,
        long? bytesPerRow = null
    )
    {
        int perPublisher = (int)Math.Max(4, (bytesPerRow ?? _targetBytes) / bodySize / publishers);
        var payloads = mode.Prepare(publishers, bodySize, FrameMax);
        await using (var warm = new DiscardingSink(flushCost))
            await mode.RunAsync(warm, _pool, FrameMax, payloads, Math.Max(2, perPublisher / 4));
        var measured = new List<(double Rate, double Alloc, double PerFlush)>();
        for (int i = 0; i < _iterations; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
            await using var sink = new DiscardingSink(flushCost);
            long allocated = GC.GetTotalAllocatedBytes(precise: true);
            var clock = Stopwatch.StartNew();
            long flushes = await mode.RunAsync(sink, _pool, FrameMax, payloads, perPublisher);
            clock.Stop();
            allocated = GC.GetTotalAllocatedBytes(precise: true) - allocated;
            long messages = (long)perPublisher * publishers;
            measured.Add(
                (
                    messages / clock.Elapsed.TotalSeconds,
                    (double)allocated / messages,
                    (double)messages / Math.Max(1, flushes)
                )
            );
        }
        var byRate = measured.OrderBy(m => m.Rate).ToList();
        return byRate[byRate.Count / 2];
    }

    private async Task<(long Heap, long WorkingSet, double Seconds)> MeasurePeakAsync(
        BenchMode mode,
        BenchMode.Payloads payloads,
        int perPublisher
    )
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        long baseHeap = GC.GetTotalMemory(forceFullCollection: true);
        long baseWs = Environment.WorkingSet;
        long peakHeap = baseHeap,
            peakWs = baseWs;
        using var stop = new CancellationTokenSource();
        var sampler = new Thread(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                peakHeap = Math.Max(peakHeap, GC.GetTotalMemory(false));
                peakWs = Math.Max(peakWs, Environment.WorkingSet);
                Thread.Sleep(2);
            }
        })
        {
            IsBackground = true,
            Priority = ThreadPriority.AboveNormal,
        };
        sampler.Start();
        var clock = Stopwatch.StartNew();
        await using (var sink = new DiscardingSink())
            await mode.RunAsync(sink, _pool, FrameMax, payloads, perPublisher);
        clock.Stop();
        stop.Cancel();
        sampler.Join();
        return (peakHeap - baseHeap, peakWs - baseWs, clock.Elapsed.TotalSeconds);
    }

    private static string Size(int bytes) =>
        bytes >= 1 << 20 ? $"{bytes >> 20} MiB"
        : bytes >= 1024 ? $"{bytes >> 10} KiB"
        : $"{bytes} B";

    private static string Mib(long bytes) => $"{bytes / (1024.0 * 1024):N1} MiB";

    private static string RuntimeInformationText() =>
        System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription;
}
