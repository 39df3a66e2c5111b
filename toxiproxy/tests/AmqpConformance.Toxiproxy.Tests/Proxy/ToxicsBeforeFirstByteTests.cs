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
        await using var rig = new LoopbackProxyRig();
        FaultProxy proxy = rig.Proxy;
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

        var (connected, upstreamEnd) = await rig.ConnectAsync(cts.Token);
        using TcpClient client = connected;
        using TcpClient accepted = upstreamEnd;
        var (up, down) = await seen.Task.WaitAsync(cts.Token);

        Assert.Equal(new LatencyFault(100) { Direction = FaultDirection.Downstream }, Assert.Single(down));
        Assert.Equal(new LimitDataFault(1000) { Direction = FaultDirection.Upstream }, Assert.Single(up));
    }
}
