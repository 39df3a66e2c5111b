namespace AmqpConformance.Toxiproxy.Tests;

/// <summary>
/// The Toxiproxy the tests talk to: a real server when TOXIPROXY_URL is set (for example
/// http://127.0.0.1:8474, started with <c>docker run --network host ghcr.io/shopify/toxiproxy</c>), otherwise
/// an <see cref="EmbeddedToxiproxy"/> started for the test. The tests use only the HTTP API, so they run
/// unchanged against both. Upstreams are given as TOXIPROXY_UPSTREAM_HOST (default 127.0.0.1) and the
/// local port: the Toxiproxy server must be able to reach that address.
/// </summary>
internal sealed class ToxiproxyTarget : IAsyncDisposable
{
    private readonly List<string> _created = [];

    private ToxiproxyTarget(ToxiproxyClient client, EmbeddedToxiproxy? embedded)
    {
        Client = client;
        Embedded = embedded;
    }

    public ToxiproxyClient Client { get; }

    /// <summary>The embedded server, or null when the tests run against a real Toxiproxy.</summary>
    public EmbeddedToxiproxy? Embedded { get; }

    public static string UpstreamHost =>
        Environment.GetEnvironmentVariable("TOXIPROXY_UPSTREAM_HOST") is { Length: > 0 } h ? h : "127.0.0.1";

    /// <summary>Where the proxy's listener is reached from the tests (TOXIPROXY_LISTEN_HOST, default
    /// 127.0.0.1).</summary>
    public static string ListenHost =>
        Environment.GetEnvironmentVariable("TOXIPROXY_LISTEN_HOST") is { Length: > 0 } h ? h : "127.0.0.1";

    public static async Task<ToxiproxyTarget> StartAsync()
    {
        string? url = Environment.GetEnvironmentVariable(ToxiproxyClient.UrlVariable);
        if (!string.IsNullOrEmpty(url))
            return new ToxiproxyTarget(new ToxiproxyClient(new Uri(url)), null);
        EmbeddedToxiproxy embedded = await EmbeddedToxiproxy.StartAsync();
        return new ToxiproxyTarget(new ToxiproxyClient(embedded.ApiUrl), embedded);
    }

    /// <summary>Creates a uniquely named proxy to UpstreamHost:<paramref name="upstreamPort"/> on a free port;
    /// it is deleted when the target is disposed.</summary>
    public async Task<ProxyConfig> CreateProxyAsync(int upstreamPort, CancellationToken ct)
    {
        string name = "amqpc_" + Guid.NewGuid().ToString("N")[..12];
        ProxyConfig proxy = await Client.CreateProxyAsync(
            name,
            $"{ListenHost}:0",
            $"{UpstreamHost}:{upstreamPort}",
            cancellationToken: ct
        );
        _created.Add(name);
        return proxy;
    }

    public async ValueTask DisposeAsync()
    {
        foreach (string name in _created)
        {
            try
            {
                await Client.DeleteProxyAsync(name);
            }
            catch (ToxiproxyApiException) { } // deleted already (by the test itself): nothing left to clean
            catch (HttpRequestException) { } // the Toxiproxy container is gone, and its proxies with it
        }
        Client.Dispose();
        if (Embedded is not null)
            await Embedded.DisposeAsync();
    }
}
