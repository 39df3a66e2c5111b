using System.Net;
using System.Net.Sockets;

namespace AmqpConformance.Toxiproxy.Tests.Proxy;

[Trait("Area", "Faults")]
public sealed class UnreachableUpstreamTests
{
    [Fact]
    public async Task A_client_whose_upstream_refuses_is_closed_in_order_not_reset()
    {
        // Toxiproxy closes the client when it cannot reach the upstream. A reset instead could fail the client's own
        // connect ("Connection reset by peer") when the reset overtakes the connect's completion on a loaded machine.
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        int refusing;
        using (var probe = new TcpListener(IPAddress.Loopback, 0))
        {
            probe.Start();
            refusing = ((IPEndPoint)probe.LocalEndpoint).Port;
        }
        await using var registry = new FaultProxyRegistry();
        ProxyConfig proxy = registry.CreateProxy(
            new ProxyConfig
            {
                Name = "p",
                Listen = "127.0.0.1:0",
                Upstream = $"127.0.0.1:{refusing}",
            }
        );

        using var client = new TcpClient();
        await client.ConnectAsync(IPAddress.Loopback, proxy.ListenPort, cts.Token);
        Assert.Equal(0, await client.GetStream().ReadAsync(new byte[16], cts.Token));
    }
}
