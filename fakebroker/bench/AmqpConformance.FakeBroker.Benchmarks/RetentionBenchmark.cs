using System.Diagnostics;
using System.Globalization;
using AmqpConformance.TestSupport.Peers;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>
/// <c>retention</c> mode: many short connections (connect, handshake, channel.open, connection.close, close-ok) against
/// one fake broker, to show that ended connections do not pile up. Prints the resident set size (RSS) and managed heap
/// after a warm-up and after the cycles, the cycles that failed, and how many the broker answered with 541
/// INTERNAL_ERROR (what it does when it runs out of memory). Goal: no 541 and RSS within 32 MB of where it started. Run
/// it under a heap cap to make a leak fail fast: <c>DOTNET_GCHeapHardLimit=0xC800000 dotnet run -c Release --project
/// fakebroker/bench/AmqpConformance.FakeBroker.Benchmarks -- retention</c> (options, parsed in
/// <see cref="BenchmarkProgram"/>: <c>--cycles 10000 --warmup 500 --parallel 4 --retention default|unlimited</c>;
/// unlimited keeps every connection, as the broker did before it had a retention budget).
/// </summary>
internal static class RetentionBenchmark
{
    private const long RssGoalBytes = 32L * 1024 * 1024;

    public static async Task<int> RunAsync(int cycles, int warmup, int parallel, ConnectionRetention retention)
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(20));
        CancellationToken ct = timeout.Token;
        string limit = Environment.GetEnvironmentVariable("DOTNET_GCHeapHardLimit") is { Length: > 0 } l ? l : "none";
        Console.WriteLine(
            string.Create(
                CultureInfo.InvariantCulture,
                $"retention: {cycles} connect/handshake/close cycles after {warmup} warm-up, {parallel} at a time; DOTNET_GCHeapHardLimit={limit} "
                    + $"(GC sees {GC.GetGCMemoryInfo().TotalAvailableMemoryBytes / 1048576.0:F0} MiB); retention {Describe(retention)}"
            )
        );

        await using FakeAmqpBroker broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, Retention = retention },
            ct
        );
        Outcome warm = await CycleAsync(broker, warmup, parallel, ct);
        await WaitUntilAllEndedAsync(broker, ct);
        (long rssBefore, long heapBefore) = Settle();
        Console.WriteLine(
            string.Create(
                CultureInfo.InvariantCulture,
                $"before: RSS {Mib(rssBefore)} MiB, managed heap {Mib(heapBefore)} MiB ({broker.AcceptedConnections} connections so far, warm-up failures {warm.Failed})"
            )
        );

        var watch = Stopwatch.StartNew();
        Outcome run = await CycleAsync(broker, cycles, parallel, ct);
        watch.Stop();
        await WaitUntilAllEndedAsync(broker, ct);
        (long rssAfter, long heapAfter) = Settle();
        long growth = rssAfter - rssBefore;
        Console.WriteLine(
            string.Create(
                CultureInfo.InvariantCulture,
                $"after:  RSS {Mib(rssAfter)} MiB, managed heap {Mib(heapAfter)} MiB; RSS growth {Mib(growth)} MiB over {cycles} cycles ({watch.Elapsed.TotalSeconds:F1} s)"
            )
        );
        Console.WriteLine(
            string.Create(
                CultureInfo.InvariantCulture,
                $"connections: {broker.AcceptedConnections} accepted, {broker.Connections.Count} retained, {broker.EvictedConnections} evicted, {broker.ConnectionSummaries.Count} summaries"
            )
        );
        Console.WriteLine(
            string.Create(
                CultureInfo.InvariantCulture,
                $"cycles: {run.Succeeded} ok, {run.Failed} failed, {run.InternalErrors} answered 541 INTERNAL_ERROR{(run.FirstError is null ? "" : "; first failure: " + run.FirstError)}"
            )
        );
        bool met = run.InternalErrors == 0 && run.Failed == 0 && growth <= RssGoalBytes;
        Console.WriteLine(
            $"goal (no 541, no failed cycle, RSS within 32 MiB of the start): {(met ? "met" : "NOT met")}"
        );
        return met ? 0 : 1;
    }

    private static string Describe(ConnectionRetention r) =>
        $"{(r.MaxEndedConnections?.ToString(CultureInfo.InvariantCulture) ?? "all")} ended connections, "
        + $"{(r.MaxEndedLogBytes is { } b ? Mib(b) + " MiB" : "unbounded")} of logs, {r.MaxSummaries} summaries";

    private static string Mib(long bytes) => (bytes / 1048576.0).ToString("F1", CultureInfo.InvariantCulture);

    private sealed class Outcome
    {
        public int Succeeded;
        public int Failed;
        public int InternalErrors;
        public string? FirstError;
    }

    /// <summary>Runs <paramref name="count"/> cycles, <paramref name="parallel"/> at a time. A cycle fails when any
    /// step fails; one ending in connection.close 541 also counts as an internal error.</summary>
    private static async Task<Outcome> CycleAsync(FakeAmqpBroker broker, int count, int parallel, CancellationToken ct)
    {
        var outcome = new Outcome();
        int next = -1;
        await Task.WhenAll(
            Enumerable
                .Range(0, parallel)
                .Select(_ =>
                    Task.Run(
                        async () =>
                        {
                            while (Interlocked.Increment(ref next) < count)
                            {
                                try
                                {
                                    await using AmqpTestClient client = await AmqpTestClient.ConnectOpenAsync(
                                        broker.Endpoint,
                                        ct
                                    );
                                    await client.CloseAsync(ct);
                                    Interlocked.Increment(ref outcome.Succeeded);
                                }
                                catch (Exception e) when (!ct.IsCancellationRequested)
                                {
                                    Interlocked.Increment(ref outcome.Failed);
                                    if (BenchPublisher.IsInternalError(e))
                                        Interlocked.Increment(ref outcome.InternalErrors);
                                    Interlocked.CompareExchange(
                                        ref outcome.FirstError,
                                        $"{e.GetType().Name}: {e.Message}",
                                        null
                                    );
                                }
                            }
                        },
                        ct
                    )
                )
        );
        return outcome;
    }

    /// <summary>Waits until the broker has ended every connection (a client's close-ok arrives before the broker's side
    /// ends).</summary>
    private static async Task WaitUntilAllEndedAsync(FakeAmqpBroker broker, CancellationToken ct)
    {
        foreach (BrokerConnection connection in broker.Connections)
            await connection.Completion.WaitAsync(ct);
    }

    /// <summary>Full blocking compacting collections, then the process RSS and the managed heap.</summary>
    private static (long Rss, long Heap) Settle()
    {
        for (int i = 0; i < 3; i++)
        {
            GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
            GC.WaitForPendingFinalizers();
        }
        Thread.Sleep(500);
        return (Environment.WorkingSet, GC.GetTotalMemory(forceFullCollection: true));
    }
}
