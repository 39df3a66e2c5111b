using System.Net;
using System.Net.Sockets;

namespace AmqpConformance.Toxiproxy.Tests.Proxy;

/// <summary>A fault proxy named "p" in front of a plain loopback listener that stands for the upstream server; disposing
/// it disposes the proxy, then the listener.</summary>
internal sealed class LoopbackProxyRig : IAsyncDisposable
{
    private readonly TcpListener _upstream = new(IPAddress.Loopback, 0);

    public LoopbackProxyRig()
    {
        _upstream.Start();
        Registry.CreateProxy(
            new ProxyConfig
            {
                Name = "p",
                Listen = "127.0.0.1:0",
                Upstream = $"127.0.0.1:{((IPEndPoint)_upstream.LocalEndpoint).Port}",
            }
        );
        Proxy = Registry.GetProxy("p");
    }

    public FaultProxyRegistry Registry { get; } = new();
    public FaultProxy Proxy { get; }

    /// <summary>Connects a client through the proxy; returns it and the upstream's end of the connection.</summary>
    public async Task<(TcpClient Client, TcpClient Upstream)> ConnectAsync(CancellationToken ct)
    {
        var client = new TcpClient { NoDelay = true };
        await client.ConnectAsync(Proxy.ListenEndpoint!, ct);
        return (client, await _upstream.AcceptTcpClientAsync(ct));
    }

    public async ValueTask DisposeAsync()
    {
        await Registry.DisposeAsync();
        _upstream.Dispose();
    }
}
