using System.Diagnostics;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using Xunit.Abstractions;

namespace AmqpConformance.Toxiproxy.Tests;

/// <summary>
/// RabbitMQ.Client 7 publishes through the proxy to the fake broker under each toxic, and each test measures
/// the toxic's effect at the broker's socket (through <see cref="ByteTap"/>) or in the broker's frame log.
/// Only the HTTP API is used, so the same tests run against a real Toxiproxy (TOXIPROXY_URL).
/// </summary>
[Trait("Area", "Faults")]
public sealed class ToxicEffectTests(ITestOutputHelper output)
{
    private static CancellationTokenSource Timeout(int seconds = 30) => new(TimeSpan.FromSeconds(seconds));

    [Fact]
    public async Task Without_toxics_publishes_are_confirmed_and_logged()
    {
        using var cts = Timeout();
        await using var setup = await AmqpThroughProxy.StartAsync(cts.Token);
        byte[] body = new byte[5000];
        Random.Shared.NextBytes(body);
        await setup.PublishAsync(body, cts.Token);
        Assert.Contains(setup.BrokerConnection.Published, m => m.Body.Span.SequenceEqual(body));
        Assert.Empty(setup.BrokerConnection.Findings);
    }

    [Fact]
    public async Task Latency_upstream_delays_each_confirm_round_trip()
    {
        using var cts = Timeout();
        await using var setup = await AmqpThroughProxy.StartAsync(cts.Token);
        await setup.PublishAsync([1], cts.Token); // warm up

        await setup.AddToxicAsync("latency", "upstream", new() { ["latency"] = 150, ["jitter"] = 0 }, cts.Token);
        var watch = Stopwatch.StartNew();
        for (int i = 0; i < 3; i++)
            await setup.PublishAsync([2], cts.Token);
        double perPublish = watch.Elapsed.TotalMilliseconds / 3;
        output.WriteLine($"latency 150 ms upstream: {perPublish:F1} ms per confirmed publish");
        Assert.True(perPublish >= 150 * 0.8, $"round trip took {perPublish:F0} ms with 150 ms of latency");
    }

    [Fact]
    public async Task Slicer_upstream_cuts_the_stream_into_small_reads_at_the_broker()
    {
        using var cts = Timeout();
        await using var setup = await AmqpThroughProxy.StartAsync(cts.Token);
        byte[] body = new byte[600];
        Random.Shared.NextBytes(body);

        int before = setup.TapConnection.UpstreamReads.Count;
        await setup.PublishAsync(body, cts.Token);
        var whole = setup.TapConnection.UpstreamReads.Skip(before).Select(r => r.Size).ToList();
        Assert.InRange(whole.Count, 1, 4); // without the slicer the publish arrives in a read or two

        await setup.AddToxicAsync(
            "slicer",
            "upstream",
            new()
            {
                ["average_size"] = 12,
                ["size_variation"] = 4,
                ["delay"] = 15_000,
            },
            cts.Token
        );
        before = setup.TapConnection.UpstreamReads.Count;
        await setup.PublishAsync(body, cts.Token);
        var sliced = setup.TapConnection.UpstreamReads.Skip(before).Select(r => r.Size).ToList();

        Assert.Equal(whole.Sum(), sliced.Sum());
        // How many reads the broker's socket needs depends on how fast this machine reads (a busy reader catches
        // several slices at once), so the slices are judged on the proxy's own record below; the exact sizes and
        // spacing are proven on virtual time (VirtualTimeToxicTests.Slicer_sends_small_slices_its_delay_apart).
        output.WriteLine(
            $"slicer 12+-4: without {whole.Count} reads, with {sliced.Count} reads; sizes {string.Join(",", sliced.Take(40))}..."
        );
        Assert.Equal(2, setup.BrokerConnection.Published.Count(m => m.Body.Span.SequenceEqual(body)));
        if (setup.Target.Embedded is { } embedded)
        {
            // The embedded proxy's own record of what it wrote upstream: the slices of the second publish are 8..16
            // bytes, except the remainder at the end of each received chunk (a publish arrives in a chunk or two).
            FaultTranscript transcript = Assert.Single(embedded.Registry.GetProxy(setup.Proxy.Name).OpenTranscripts());
            IReadOnlyList<long> chunks = transcript.DeliveredChunkSizes(FaultDirection.Upstream);
            long tail = 0;
            var slices = chunks.Reverse().TakeWhile(c => (tail += c) <= sliced.Sum()).ToList();
            Assert.Equal(sliced.Sum(), slices.Sum());
            Assert.All(slices, c => Assert.InRange(c, 1, 16));
            Assert.True(slices.Count(c => c < 8) <= 3, $"slices: {string.Join(",", slices)}");
        }
        Assert.Empty(setup.BrokerConnection.Findings);
    }

    [Fact]
    public async Task Bandwidth_upstream_never_exceeds_the_rate()
    {
        using var cts = Timeout(60);
        await using var setup = await AmqpThroughProxy.StartAsync(cts.Token);
        await setup.AddToxicAsync("bandwidth", "upstream", new() { ["rate"] = 200 }, cts.Token);
        long before = setup.TapConnection.UpstreamBytes;
        TimeSpan start = setup.TapConnection.Elapsed;
        await setup.PublishAsync(new byte[250_000], cts.Token);

        long bytes = setup.TapConnection.UpstreamBytes - before;
        TimeSpan last = setup.TapConnection.UpstreamReads[^1].At;
        // The limit is a ceiling that load cannot break: the last byte cannot pass before bytes / rate after the first
        // one reached the proxy, which is after the publish started, and a slow machine only makes the transfer look
        // slower. How close the proxy comes to the rate depends on the CPU it gets, so the rate itself is proven on
        // virtual time (VirtualTimeToxicTests.Bandwidth_delivers_exactly_its_rate).
        double seconds = (last - start).TotalSeconds;
        double kbPerSecond = bytes / 1000.0 / seconds;
        output.WriteLine(
            $"bandwidth 200 KB/s: {bytes} bytes in {seconds:F2} s from the publish to the last read, {kbPerSecond:F1} KB/s"
        );
        Assert.True(kbPerSecond <= 200 * 1.01, $"{kbPerSecond:F1} KB/s through a 200 KB/s limit");
    }

    [Fact]
    public async Task Timeout_black_holes_until_removed_then_the_connection_closes()
    {
        using var cts = Timeout();
        await using var setup = await AmqpThroughProxy.StartAsync(cts.Token);
        await setup.PublishAsync([1], cts.Token);
        int framesBefore = setup.BrokerConnection.Log.Count;
        long bytesBefore = setup.TapConnection.UpstreamBytes;

        await setup.AddToxicAsync("timeout", "upstream", new() { ["timeout"] = 0 }, cts.Token);
        Task publish = setup.PublishAsync(new byte[100], cts.Token);
        await Task.Delay(1000, cts.Token);
        Assert.False(publish.IsCompleted, "a publish through a black hole must not be confirmed");
        Assert.Equal(bytesBefore, setup.TapConnection.UpstreamBytes);
        Assert.Equal(framesBefore, setup.BrokerConnection.Log.Count);
        Assert.True(setup.Connection.IsOpen, "the black hole holds the connection open");

        await setup.Target.Client.RemoveToxicAsync(setup.Proxy.Name, "timeout_upstream", cts.Token);
        await setup.WaitUntilClosedAsync(cts.Token);
        await Assert.ThrowsAnyAsync<Exception>(() => publish);
        Assert.Equal(bytesBefore, setup.TapConnection.UpstreamBytes);
    }

    [Fact]
    public async Task Reset_peer_mid_message_fails_the_client_and_the_broker_sees_a_partial_frame()
    {
        using var cts = Timeout();
        await using var setup = await AmqpThroughProxy.StartAsync(cts.Token);
        await setup.AddToxicAsync("bandwidth", "upstream", new() { ["rate"] = 100 }, cts.Token);
        long start = setup.TapConnection.UpstreamBytes;
        const int BodySize = 300_000;
        Task publish = setup.PublishAsync(new byte[BodySize], cts.Token);
        await setup.TapConnection.WaitForUpstreamBytesAsync(start + 30_000, cts.Token);

        await setup.AddToxicAsync("reset_peer", "upstream", new() { ["timeout"] = 0 }, cts.Token);

        await Assert.ThrowsAnyAsync<Exception>(() => publish);
        await setup.WaitUntilClosedAsync(cts.Token);
        // The embedded proxy resets (RST) both sides; Toxiproxy 2.x sets linger 0 only on connections that had the
        // reset_peer toxic from the start, so on a live connection it closes with a FIN. Either way the stream ends
        // here.
        Exception? how = await setup.TapConnection.Upstream.WaitAsync(cts.Token);
        if (setup.Target.Embedded is not null)
            Assert.IsType<System.Net.Sockets.SocketException>(how);
        await setup.BrokerConnection.Completion.WaitAsync(cts.Token);

        // The broker got the header and part of the body, and its stream stopped inside a frame.
        IReadOnlyList<FrameRecord> frames = setup.BrokerConnection.Log.Snapshot();
        FrameRecord header = frames.Last(f => f.Direction == FrameDirection.Received && f.Type == FrameType.Header);
        Assert.Equal(BodySize, header.DeclaredBodySize);
        long bodyReceived = frames
            .Where(f =>
                f.Direction == FrameDirection.Received && f.Type == FrameType.Body && f.Sequence > header.Sequence
            )
            .Sum(f => (long)f.Size);
        Assert.True(bodyReceived < BodySize, $"the whole body arrived ({bodyReceived} bytes)");
        long received = setup.TapConnection.UpstreamBytes;
        output.WriteLine(
            $"reset_peer: broker got {received} bytes, whole frames end at {setup.WholeFrameBytes()}, body frames carried {bodyReceived} of {BodySize}; tap saw {(how is null ? "FIN" : how.GetType().Name)}"
        );
        Assert.True(received > setup.WholeFrameBytes(), $"the broker received {received} bytes, all in whole frames");
        Assert.Contains(setup.BrokerConnection.Findings, f => f.Rule == "truncated-frame");
        Assert.DoesNotContain(setup.BrokerConnection.Published, m => m.Body.Length == BodySize);
    }

    [Fact]
    public async Task Limit_data_closes_after_the_byte_budget()
    {
        using var cts = Timeout();
        await using var setup = await AmqpThroughProxy.StartAsync(cts.Token);
        long before = setup.TapConnection.UpstreamBytes;
        await setup.AddToxicAsync("limit_data", "upstream", new() { ["bytes"] = 1000 }, cts.Token);
        await Assert.ThrowsAnyAsync<Exception>(() => setup.PublishAsync(new byte[5000], cts.Token));
        await setup.WaitUntilClosedAsync(cts.Token);
        Assert.Null(await setup.TapConnection.Upstream); // an orderly close
        Assert.Equal(before + 1000, setup.TapConnection.UpstreamBytes);
    }
}
