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
    private static ToxicConfig Toxic(
        string type,
        string stream,
        string name,
        params (string Key, long Value)[] attributes
    ) =>
        new()
        {
            Name = name,
            Type = type,
            Stream = stream,
            Attributes = attributes.ToDictionary(a => a.Key, a => a.Value),
        };

    /// <summary>A proxy on a manual clock with one toxic, in front of a <see cref="RecordingSink"/>,
    /// and a client connected through it.</summary>
    private sealed class Rig : IAsyncDisposable
    {
        private Rig(ManualTimeProvider clock, bool echo, CancellationToken ct)
        {
            Clock = clock;
            Sink = RecordingSink.Start(clock, ct, echo);
            Registry = new FaultProxyRegistry(clock);
            Registry.CreateProxy(
                new ProxyConfig
                {
                    Name = "p",
                    Listen = "127.0.0.1:0",
                    Upstream = $"127.0.0.1:{Sink.Port}",
                }
            );
            Proxy = Registry.GetProxy("p");
        }

        public ManualTimeProvider Clock { get; }
        public RecordingSink Sink { get; }
        public FaultProxyRegistry Registry { get; }
        public FaultProxy Proxy { get; }
        public TcpClient Client { get; } = new();

        public static async Task<Rig> StartAsync(ToxicConfig toxic, CancellationToken ct, bool echo = false)
        {
            var rig = new Rig(new ManualTimeProvider(), echo, ct);
            rig.Proxy.AddToxic(toxic);
            await rig.Client.ConnectAsync(IPAddress.Loopback, rig.Proxy.ToConfig().ListenPort, ct);
            return rig;
        }

        public async ValueTask DisposeAsync()
        {
            Client.Dispose();
            await Registry.DisposeAsync();
            Sink.Dispose();
        }
    }

    [Fact]
    public async Task Latency_holds_each_echo_for_exactly_its_delay_and_a_change_reaches_the_live_connection()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        await using var rig = await Rig.StartAsync(
            Toxic(ToxicTypes.Latency, ToxicStreams.Downstream, "slow", ("latency", 100)),
            cts.Token,
            echo: true
        );
        (ManualTimeProvider clock, FaultProxy proxy) = (rig.Clock, rig.Proxy);
        NetworkStream stream = rig.Client.GetStream();

        async Task<TimeSpan> RoundTripAsync(byte[] message)
        {
            TimeSpan start = clock.Now;
            await stream.WriteAsync(message, cts.Token);
            byte[] back = new byte[message.Length];
            Task read = stream.ReadExactlyAsync(back, cts.Token).AsTask();
            while (true)
            {
                // Time moves only to the proxy's next delay; an echo that comes back before any time passed skipped the
                // toxic.
                Task step = await Task.WhenAny(read, clock.WhenTimerScheduledAsync(cts.Token));
                if (step == read)
                    break;
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
        // 100 KB/s = 100 bytes per ms.
        await using var rig = await Rig.StartAsync(
            Toxic(ToxicTypes.Bandwidth, ToxicStreams.Upstream, "thin", ("rate", 100)),
            cts.Token
        );
        (ManualTimeProvider clock, RecordingSink sink) = (rig.Clock, rig.Sink);
        const int Bytes = 50_000;
        await rig.Client.GetStream().WriteAsync(new byte[Bytes], cts.Token);

        Task all = sink.WaitForTotalAsync(Bytes, cts.Token);
        while (await Task.WhenAny(all, clock.WhenTimerScheduledAsync(cts.Token)) != all)
            clock.AdvanceToNextTimer();

        // Whenever the upstream read anything, it had at most rate x time; the last byte came exactly at size / rate.
        long total = 0;
        foreach ((TimeSpan at, int size) in sink.Reads)
        {
            total += size;
            Assert.True(
                total <= 100 * at.TotalMilliseconds + 1,
                $"{total} bytes by {at.TotalMilliseconds} ms through 100 KB/s"
            );
        }
        Assert.InRange(clock.Now.TotalMilliseconds, 499.9, 500.1);
    }

    [Fact]
    public async Task Slicer_sends_small_slices_its_delay_apart()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        await using var rig = await Rig.StartAsync(
            Toxic(
                ToxicTypes.Slicer,
                ToxicStreams.Upstream,
                "cut",
                ("average_size", 12),
                ("size_variation", 4),
                ("delay", 15_000)
            ),
            cts.Token
        );
        (ManualTimeProvider clock, RecordingSink sink, FaultProxy proxy) = (rig.Clock, rig.Sink, rig.Proxy);
        const int Bytes = 600;
        await rig.Client.GetStream().WriteAsync(new byte[Bytes], cts.Token);

        Task all = sink.WaitForTotalAsync(Bytes, cts.Token);
        while (await Task.WhenAny(all, clock.WhenTimerScheduledAsync(cts.Token)) != all)
        {
            // Let the upstream read what went out before the next slice may go, so each read is what one step
            // delivered.
            long delivered = Assert.Single(proxy.OpenTranscripts()).DeliveredChunkSizes(FaultDirection.Upstream).Sum();
            await sink.WaitForTotalAsync(delivered, cts.Token);
            clock.AdvanceToNextTimer();
        }

        IReadOnlyList<long> slices = Assert
            .Single(proxy.OpenTranscripts())
            .DeliveredChunkSizes(FaultDirection.Upstream);
        Assert.Equal(Bytes, slices.Sum());
        Assert.All(slices, s => Assert.InRange(s, 1, 16));
        Assert.True(slices.Count(s => s < 8) <= 2, $"slices: {string.Join(",", slices)}"); // only a chunk's remainder is shorter
        IReadOnlyList<(TimeSpan At, int Size)> reads = sink.Reads;
        Assert.True(reads.Count >= Bytes / 16 - 1, $"{reads.Count} reads");
        Assert.All(reads, r => Assert.InRange(r.Size, 1, 32)); // one slice a step (two where a received chunk ended)
        for (int i = 1; i < reads.Count; i++)
            Assert.Equal(TimeSpan.FromMilliseconds(15), reads[i].At - reads[i - 1].At);
    }
}
