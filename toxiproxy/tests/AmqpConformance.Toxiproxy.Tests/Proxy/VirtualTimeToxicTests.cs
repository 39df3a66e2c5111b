using System.Net;
using System.Net.Sockets;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Toxiproxy.Tests.Support;

namespace AmqpConformance.Toxiproxy.Tests.Proxy;

/// <summary>
/// The embedded proxy's time-based toxics on a <see cref="ManualTimeProvider"/>: the test moves time from one toxic
/// delay to the next, so what each toxic does is checked exactly, with no wall-clock bound and whatever the load.
/// </summary>
[Trait("Area", "Faults")]
public sealed class VirtualTimeToxicTests
{
    private static ToxicConfig Toxic(string type, string stream, string name, params (string Key, long Value)[] attributes) => new()
    {
        Name = name, Type = type, Stream = stream, Attributes = attributes.ToDictionary(a => a.Key, a => a.Value),
    };

    private static FaultProxy CreateProxy(FaultProxyRegistry registry, int upstreamPort)
    {
        registry.CreateProxy(new ProxyConfig { Name = "p", Listen = "127.0.0.1:0", Upstream = $"127.0.0.1:{upstreamPort}" });
        return registry.GetProxy("p");
    }

    [Fact]
    public async Task Latency_holds_each_echo_for_exactly_its_delay_and_a_change_reaches_the_live_connection()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var clock = new ManualTimeProvider();
        using var echo = RecordingSink.Start(clock, cts.Token, echo: true);
        await using var registry = new FaultProxyRegistry(clock);
        FaultProxy proxy = CreateProxy(registry, echo.Port);
        proxy.AddToxic(Toxic(ToxicTypes.Latency, ToxicStreams.Downstream, "slow", ("latency", 100)));

        using var client = new TcpClient();
        await client.ConnectAsync(IPAddress.Loopback, proxy.ToConfig().ListenPort, cts.Token);
        NetworkStream stream = client.GetStream();

        async Task<TimeSpan> RoundTripAsync(byte[] message)
        {
            TimeSpan start = clock.Now;
            await stream.WriteAsync(message, cts.Token);
            byte[] back = new byte[message.Length];
            Task read = stream.ReadExactlyAsync(back, cts.Token).AsTask();
            while (true)
            {
                // Time moves only to the proxy's next delay; an echo that comes back before any time passed skipped the toxic.
                Task step = await Task.WhenAny(read, clock.WhenTimerScheduledAsync(cts.Token));
                if (step == read) break;
                clock.AdvanceToNextTimer();
            }
            await read;
            Assert.Equal(message, back);
            return clock.Now - start;
        }

        Assert.Equal(TimeSpan.FromMilliseconds(100), await RoundTripAsync("ping"u8.ToArray()));
        proxy.UpdateToxic("slow", new Dictionary<string, long> { ["latency"] = 300 }, toxicity: null);
        Assert.Equal(TimeSpan.FromMilliseconds(300), await RoundTripAsync("pong"u8.ToArray()));
        proxy.RemoveToxic("slow");
        Assert.Equal(TimeSpan.Zero, await RoundTripAsync("done"u8.ToArray()));
    }

    [Fact]
    public async Task Bandwidth_delivers_exactly_its_rate()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var clock = new ManualTimeProvider();
        using var sink = RecordingSink.Start(clock, cts.Token);
        await using var registry = new FaultProxyRegistry(clock);
        FaultProxy proxy = CreateProxy(registry, sink.Port);
        proxy.AddToxic(Toxic(ToxicTypes.Bandwidth, ToxicStreams.Upstream, "thin", ("rate", 100))); // 100 KB/s = 100 bytes per ms

        using var client = new TcpClient();
        await client.ConnectAsync(IPAddress.Loopback, proxy.ToConfig().ListenPort, cts.Token);
        const int Bytes = 50_000;
        await client.GetStream().WriteAsync(new byte[Bytes], cts.Token);

        Task all = sink.WaitForTotalAsync(Bytes, cts.Token);
        while (await Task.WhenAny(all, clock.WhenTimerScheduledAsync(cts.Token)) != all)
            clock.AdvanceToNextTimer();

        // Whenever the upstream read anything, it had at most rate x time; the last byte came exactly at size / rate.
        long total = 0;
        foreach ((TimeSpan at, int size) in sink.Reads)
        {
            total += size;
            Assert.True(total <= 100 * at.TotalMilliseconds + 1, $"{total} bytes by {at.TotalMilliseconds} ms through 100 KB/s");
        }
        Assert.InRange(clock.Now.TotalMilliseconds, 499.9, 500.1);
    }

    [Fact]
    public async Task Slicer_sends_small_slices_its_delay_apart()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var clock = new ManualTimeProvider();
        using var sink = RecordingSink.Start(clock, cts.Token);
        await using var registry = new FaultProxyRegistry(clock);
        FaultProxy proxy = CreateProxy(registry, sink.Port);
        proxy.AddToxic(Toxic(ToxicTypes.Slicer, ToxicStreams.Upstream, "cut", ("average_size", 12), ("size_variation", 4), ("delay", 15_000)));

        using var client = new TcpClient();
        await client.ConnectAsync(IPAddress.Loopback, proxy.ToConfig().ListenPort, cts.Token);
        const int Bytes = 600;
        await client.GetStream().WriteAsync(new byte[Bytes], cts.Token);

        Task all = sink.WaitForTotalAsync(Bytes, cts.Token);
        while (await Task.WhenAny(all, clock.WhenTimerScheduledAsync(cts.Token)) != all)
        {
            // Let the upstream read what went out before the next slice may go, so each read is what one step delivered.
            long delivered = Assert.Single(proxy.OpenTranscripts()).DeliveredChunkSizes(FaultDirection.Upstream).Sum();
            await sink.WaitForTotalAsync(delivered, cts.Token);
            clock.AdvanceToNextTimer();
        }

        IReadOnlyList<long> slices = Assert.Single(proxy.OpenTranscripts()).DeliveredChunkSizes(FaultDirection.Upstream);
        Assert.Equal(Bytes, slices.Sum());
        Assert.All(slices, s => Assert.InRange(s, 1, 16));
        Assert.True(slices.Count(s => s < 8) <= 2, $"slices: {string.Join(",", slices)}"); // only a chunk's remainder is shorter
        IReadOnlyList<(TimeSpan At, int Size)> reads = sink.Reads;
        Assert.True(reads.Count >= Bytes / 16 - 1, $"{reads.Count} reads");
        Assert.All(reads, r => Assert.InRange(r.Size, 1, 32)); // one slice a step (two where a received chunk ended)
        for (int i = 1; i < reads.Count; i++) Assert.Equal(TimeSpan.FromMilliseconds(15), reads[i].At - reads[i - 1].At);
    }
}
