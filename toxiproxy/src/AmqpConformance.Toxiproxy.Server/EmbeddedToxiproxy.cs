using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace AmqpConformance.Toxiproxy;

/// <summary>
/// A Toxiproxy stand-in that runs in process: serves the parts of Toxiproxy's HTTP API (v2) that clients
/// use, on a loopback port (Kestrel minimal APIs), and runs the proxies it describes (<see cref="FaultProxy"/>).
/// Point <see cref="ToxiproxyClient"/> (or any Toxiproxy client) at <see cref="ApiUrl"/>.
/// </summary>
/// <remarks>
/// <para>Endpoints: GET /version; GET, POST /proxies; POST /populate; GET, POST/PATCH (update), DELETE
/// /proxies/{name}; GET, POST /proxies/{name}/toxics; GET, POST/PATCH (update), DELETE
/// /proxies/{name}/toxics/{toxic}; POST /reset. Status codes, defaults (a toxic's stream defaults to
/// downstream, toxicity to 1, name to "{type}_{stream}") and error bodies (<c>{"error","status"}</c>)
/// follow Toxiproxy. Differences: proxies listen on loopback only; invalid toxic attributes (such as a
/// slicer size_variation not below average_size) are refused with 400 instead of accepted.</para>
/// <para>Disposal stops the API and every proxy, closing their connections.</para>
/// </remarks>
public sealed class EmbeddedToxiproxy : IAsyncDisposable
{
    /// <summary>What GET /version reports.</summary>
    public const string Version = "2.12.0-amqpc-embedded";

    private WebApplication? _app;

    private EmbeddedToxiproxy() { }

    /// <summary>Starts the API on <paramref name="api"/> (default 127.0.0.1, a free port).</summary>
    /// <exception cref="ArgumentException"><paramref name="api"/> is not a loopback address.</exception>
    public static async Task<EmbeddedToxiproxy> StartAsync(IPEndPoint? api = null, CancellationToken cancellationToken = default)
    {
        api ??= new IPEndPoint(IPAddress.Loopback, 0);
        if (!IPAddress.IsLoopback(api.Address))
            throw new ArgumentException($"The embedded Toxiproxy API binds to loopback only, not {api}.", nameof(api));
        var proxy = new EmbeddedToxiproxy();
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder(new WebApplicationOptions { Args = [] });
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(k => k.Listen(api));
        WebApplication app = builder.Build();
        ToxiproxyApi.Map(app, proxy.Registry);
        await app.StartAsync(cancellationToken).ConfigureAwait(false);
        proxy._app = app;
        string address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
        proxy.ApiUrl = new Uri(address.EndsWith('/') ? address : address + "/");
        return proxy;
    }

    /// <summary>The API's base address, such as http://127.0.0.1:38211/.</summary>
    public Uri ApiUrl { get; private set; } = null!;

    /// <summary>The proxies this API serves.</summary>
    public FaultProxyRegistry Registry { get; } = new();

    /// <summary>Stops the API, then every proxy.</summary>
    public async ValueTask DisposeAsync()
    {
        if (_app is not null)
        {
            await _app.StopAsync().ConfigureAwait(false);
            await _app.DisposeAsync().ConfigureAwait(false);
            _app = null;
        }
        await Registry.DisposeAsync().ConfigureAwait(false);
    }
}
