using System.Net;
using System.Net.Sockets;
using AmqpConformance.Harness.Faults;

namespace AmqpConformance.Toxiproxy.Tests.Proxy;

/// <summary>A new connection's first bytes go through the toxics that already existed when it was accepted.</summary>
[Trait("Area", "Faults")]
public sealed class ToxicsBeforeFirstByteTests
{
    [Fact]
    public async Task A_new_connection_has_the_existing_toxics_before_it_forwards_anything()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        using var upstream = new TcpListener(IPAddress.Loopback, 0);
        upstream.Start();
        await using var registry = new FaultProxyRegistry();
        registry.CreateProxy(
            new ProxyConfig
            {
                Name = "p",
                Listen = "127.0.0.1:0",
                Upstream = $"127.0.0.1:{((IPEndPoint)upstream.LocalEndpoint).Port}",
            }
        );
        FaultProxy proxy = registry.GetProxy("p");
        proxy.AddToxic(
            new ToxicConfig
            {
                Name = "slow",
                Type = ToxicTypes.Latency,
                Stream = ToxicStreams.Downstream,
                Attributes = new Dictionary<string, long> { ["latency"] = 100 },
            }
        );
        proxy.AddToxic(
            new ToxicConfig
            {
                Name = "cut",
                Type = ToxicTypes.LimitData,
                Stream = ToxicStreams.Upstream,
                Attributes = new Dictionary<string, long> { ["bytes"] = 1000 },
            }
        );
        var seen = new TaskCompletionSource<(IReadOnlyList<Fault> Up, IReadOnlyList<Fault> Down)>(
            TaskCreationOptions.RunContinuationsAsynchronously
        );
        proxy.ForwardingStarting = c => seen.TrySetResult((c.UpstreamFaults.Current, c.DownstreamFaults.Current));

        using var client = new TcpClient();
        await client.ConnectAsync(IPAddress.Loopback, proxy.ToConfig().ListenPort, cts.Token);
        using TcpClient accepted = await upstream.AcceptTcpClientAsync(cts.Token);
        var (up, down) = await seen.Task.WaitAsync(cts.Token);

        Assert.Equal(new LatencyFault(100) { Direction = FaultDirection.Downstream }, Assert.Single(down));
        Assert.Equal(new LimitDataFault(1000) { Direction = FaultDirection.Upstream }, Assert.Single(up));
    }
}
