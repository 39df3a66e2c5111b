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
/// <para>Endpoints: GET /version; GET, POST /proxies; POST /populate; GET, POST/PATCH (update), DELETE /proxies/{name};
/// GET, POST /proxies/{name}/toxics; GET, POST/PATCH (update), DELETE /proxies/{name}/toxics/{toxic}; POST /reset.
/// Status codes, defaults (a toxic's stream defaults to downstream, toxicity to 1, name to "{type}_{stream}") and error
/// bodies (<c>{"error","status"}</c>) follow Toxiproxy; error bodies also name the <c>"field"</c> at fault.
/// Differences: proxies listen on loopback only; invalid input that Toxiproxy accepts is refused with 400 naming the
/// field (<see cref="ToxiproxyValidation"/>: names of at most 255 characters without '/', attribute ranges such as
/// limit_data bytes &gt;= 0, a slicer size_variation below average_size); a listen address in use is 409; unknown
/// routes and methods get a JSON 404/405; the server answers 500 only for its own failures, never for what a client
/// sent.</para>
/// <para>Disposal stops the API and every proxy, closing their connections.</para>
/// </remarks>
public sealed class EmbeddedToxiproxy : IAsyncDisposable
{
    /// <summary>What GET /version reports.</summary>
    public const string Version = "2.12.0-amqpc-embedded";

    private WebApplication? _app;

    private EmbeddedToxiproxy(ILoggerFactory? loggerFactory) =>
        Registry = new FaultProxyRegistry { LoggerFactory = loggerFactory };

    /// <summary>Starts the API on <paramref name="api"/> (default 127.0.0.1, a free port). An IPv4-mapped loopback
    /// address ([::ffff:127.0.0.1]) is taken as its IPv4 address.</summary>
    /// <exception cref="ToxiproxyBindException"><paramref name="api"/> is not a loopback address, or cannot be bound
    /// (such as a port in use).</exception>
    public static Task<EmbeddedToxiproxy> StartAsync(
        IPEndPoint? api = null,
        CancellationToken cancellationToken = default
    ) => StartAsync(api, loggerFactory: null, cancellationToken);

    /// <summary>Starts the API on <paramref name="api"/> (null: 127.0.0.1, a free port), its proxies logging to
    /// <paramref name="loggerFactory"/> (<see cref="FaultProxyRegistry.LoggerFactory"/>; null logs nothing). The API's
    /// own web host does not log.</summary>
    /// <exception cref="ToxiproxyBindException"><paramref name="api"/> is not a loopback address, or cannot be bound
    /// (such as a port in use).</exception>
    public static Task<EmbeddedToxiproxy> StartAsync(
        IPEndPoint? api,
        ILoggerFactory? loggerFactory,
        CancellationToken cancellationToken = default
    )
    {
        api ??= new IPEndPoint(IPAddress.Loopback, 0);
        IPEndPoint endpoint;
        try
        {
            endpoint = ToxiproxyValidation.ParseLoopback(api.ToString(), "api");
        }
        catch (ToxiproxyApiException e)
        {
            throw new ToxiproxyBindException(
                api.ToString(),
                "the embedded Toxiproxy API binds to loopback only (127.0.0.1, [::1] or localhost)",
                e
            );
        }
        return StartCoreAsync(api.ToString(), endpoint, loggerFactory, cancellationToken);
    }

    /// <summary>Starts the API on <paramref name="api"/>, given as host:port: 127.0.0.1:8474, [::1]:8474,
    /// localhost:8474 (127.0.0.1) or [::ffff:127.0.0.1]:8474 (127.0.0.1); port 0 picks a free one.</summary>
    /// <exception cref="ToxiproxyBindException"><paramref name="api"/> does not parse, is not a loopback address, or
    /// cannot be bound (such as a port in use).</exception>
    public static Task<EmbeddedToxiproxy> StartAsync(string api, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(api);
        IPEndPoint endpoint;
        try
        {
            endpoint = ToxiproxyValidation.ParseLoopback(api, "api");
        }
        catch (ToxiproxyApiException e)
        {
            throw new ToxiproxyBindException(api, e.Message, e);
        }
        return StartCoreAsync(api, endpoint, loggerFactory: null, cancellationToken);
    }

    private static async Task<EmbeddedToxiproxy> StartCoreAsync(
        string given,
        IPEndPoint endpoint,
        ILoggerFactory? loggerFactory,
        CancellationToken cancellationToken
    )
    {
        var proxy = new EmbeddedToxiproxy(loggerFactory);
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder(new WebApplicationOptions { Args = [] });
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(k => k.Listen(endpoint));
        WebApplication app = builder.Build();
        ToxiproxyApi.Map(app, proxy.Registry);
        try
        {
            await app.StartAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (!(e is OperationCanceledException && cancellationToken.IsCancellationRequested))
        {
            await app.DisposeAsync().ConfigureAwait(false);
            await proxy.Registry.DisposeAsync().ConfigureAwait(false);
            throw new ToxiproxyBindException(given, (e.InnerException ?? e).Message, e);
        }
        proxy._app = app;
        string address = app
            .Services.GetRequiredService<IServer>()
            .Features.Get<IServerAddressesFeature>()!
            .Addresses.First();
        proxy.ApiUrl = new Uri(address.EndsWith('/') ? address : address + "/");
        return proxy;
    }

    /// <summary>The API's base address, such as http://127.0.0.1:38211/.</summary>
    public Uri ApiUrl { get; private set; } = null!;

    /// <summary>The proxies this API serves.</summary>
    public FaultProxyRegistry Registry { get; }

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
