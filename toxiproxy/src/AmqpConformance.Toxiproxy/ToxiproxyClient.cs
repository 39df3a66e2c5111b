using System.Net.Http.Json;
using System.Text.Json;

namespace AmqpConformance.Toxiproxy;

/// <summary>
/// A typed client for Toxiproxy's HTTP API (v2): works against a real Toxiproxy server and against the embedded one
/// (AmqpConformance.Toxiproxy.Server) alike. Every non-success answer throws <see cref="ToxiproxyApiException"/> with
/// the server's status and message.
/// </summary>
/// <remarks>Updates use POST (accepted by every Toxiproxy 2.x; PATCH only by newer ones). The client owns its
/// <see cref="HttpClient"/> unless one was passed in.</remarks>
public sealed class ToxiproxyClient : IDisposable
{
    /// <summary>The environment variable that points tests at a real Toxiproxy (for example
    /// http://127.0.0.1:8474).</summary>
    public const string UrlVariable = "TOXIPROXY_URL";

    private readonly HttpClient _http;
    private readonly bool _ownsHttp;

    /// <summary>Creates a client for the API at <paramref name="baseUrl"/>.</summary>
    public ToxiproxyClient(Uri baseUrl, HttpClient? http = null)
    {
        ArgumentNullException.ThrowIfNull(baseUrl);
        _ownsHttp = http is null;
        _http = http ?? new HttpClient { Timeout = TimeSpan.FromSeconds(15) };
        BaseUrl = baseUrl.AbsoluteUri.EndsWith('/') ? baseUrl : new Uri(baseUrl.AbsoluteUri + "/");
    }

    /// <summary>The API's base address.</summary>
    public Uri BaseUrl { get; }

    /// <summary>GET /version: the server's version (Toxiproxy 2.6+ answers <c>{"version": "..."}</c>, older ones plain
    /// text).</summary>
    public async Task<string> GetVersionAsync(CancellationToken cancellationToken = default)
    {
        string text = (
            await SendTextAsync(HttpMethod.Get, "version", null, cancellationToken).ConfigureAwait(false)
        ).Trim();
        try
        {
            using JsonDocument doc = JsonDocument.Parse(text);
            if (
                doc.RootElement.ValueKind == JsonValueKind.Object
                && doc.RootElement.TryGetProperty("version", out JsonElement v)
            )
                return v.GetString() ?? "";
        }
        catch (JsonException) { } // not JSON: the version is unknown, said as such below
        return text;
    }

    /// <summary>GET /proxies: every proxy, by name.</summary>
    public async Task<IReadOnlyDictionary<string, ProxyConfig>> GetProxiesAsync(
        CancellationToken cancellationToken = default
    ) => await GetAsync<Dictionary<string, ProxyConfig>>("proxies", cancellationToken).ConfigureAwait(false);

    /// <summary>POST /proxies: creates a proxy (enabled unless <paramref name="enabled"/> is false); returns it
    /// with the address it really listens on.</summary>
    public Task<ProxyConfig> CreateProxyAsync(
        string name,
        string listen,
        string upstream,
        bool enabled = true,
        CancellationToken cancellationToken = default
    ) =>
        PostAsync<ProxyConfig>(
            "proxies",
            new
            {
                name,
                listen,
                upstream,
                enabled,
            },
            cancellationToken
        );

    /// <summary>POST /populate: creates or replaces several proxies at once.</summary>
    public async Task<IReadOnlyList<ProxyConfig>> PopulateAsync(
        IEnumerable<ProxyConfig> proxies,
        CancellationToken cancellationToken = default
    )
    {
        var body = proxies
            .Select(p => new
            {
                name = p.Name,
                listen = p.Listen,
                upstream = p.Upstream,
                enabled = p.Enabled,
            })
            .ToList();
        using JsonDocument doc = await SendAsync(HttpMethod.Post, "populate", body, cancellationToken)
            .ConfigureAwait(false);
        return doc.RootElement.GetProperty("proxies").Deserialize<List<ProxyConfig>>(ToxiproxyJson.Options) ?? [];
    }

    /// <summary>GET /proxies/{name}.</summary>
    public Task<ProxyConfig> GetProxyAsync(string name, CancellationToken cancellationToken = default) =>
        GetAsync<ProxyConfig>($"proxies/{Uri.EscapeDataString(name)}", cancellationToken);

    /// <summary>POST /proxies/{name}: changes listen, upstream or enabled (null fields are left as they are).</summary>
    public Task<ProxyConfig> UpdateProxyAsync(
        string name,
        string? listen = null,
        string? upstream = null,
        bool? enabled = null,
        CancellationToken cancellationToken = default
    )
    {
        var body = new Dictionary<string, object>();
        if (listen is not null)
            body["listen"] = listen;
        if (upstream is not null)
            body["upstream"] = upstream;
        if (enabled is not null)
            body["enabled"] = enabled.Value;
        return PostAsync<ProxyConfig>($"proxies/{Uri.EscapeDataString(name)}", body, cancellationToken);
    }

    /// <summary>DELETE /proxies/{name}.</summary>
    public async Task DeleteProxyAsync(string name, CancellationToken cancellationToken = default) =>
        (
            await SendAsync(HttpMethod.Delete, $"proxies/{Uri.EscapeDataString(name)}", null, cancellationToken)
                .ConfigureAwait(false)
        )?.Dispose();

    /// <summary>GET /proxies/{name}/toxics.</summary>
    public async Task<IReadOnlyList<ToxicConfig>> GetToxicsAsync(
        string proxy,
        CancellationToken cancellationToken = default
    ) =>
        await GetAsync<List<ToxicConfig>>($"proxies/{Uri.EscapeDataString(proxy)}/toxics", cancellationToken)
            .ConfigureAwait(false);

    /// <summary>POST /proxies/{name}/toxics: adds a toxic; returns it as the server stored it (defaults filled
    /// in).</summary>
    public Task<ToxicConfig> AddToxicAsync(
        string proxy,
        ToxicConfig toxic,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(toxic);
        var body = new Dictionary<string, object>
        {
            ["type"] = toxic.Type,
            ["stream"] = toxic.Stream,
            ["toxicity"] = toxic.Toxicity,
            ["attributes"] = toxic.Attributes,
        };
        if (!string.IsNullOrEmpty(toxic.Name))
            body["name"] = toxic.Name;
        return PostAsync<ToxicConfig>($"proxies/{Uri.EscapeDataString(proxy)}/toxics", body, cancellationToken);
    }

    /// <summary>Adds a toxic built from its parts (see <see cref="ToxicTypes"/> for types and attributes).</summary>
    public Task<ToxicConfig> AddToxicAsync(
        string proxy,
        string type,
        string stream,
        IReadOnlyDictionary<string, long> attributes,
        string? name = null,
        float toxicity = 1f,
        CancellationToken cancellationToken = default
    ) =>
        AddToxicAsync(
            proxy,
            new ToxicConfig
            {
                Name = name ?? "",
                Type = type,
                Stream = stream,
                Toxicity = toxicity,
                Attributes = attributes,
            },
            cancellationToken
        );

    /// <summary>GET /proxies/{name}/toxics/{toxic}.</summary>
    public Task<ToxicConfig> GetToxicAsync(string proxy, string toxic, CancellationToken cancellationToken = default) =>
        GetAsync<ToxicConfig>(
            $"proxies/{Uri.EscapeDataString(proxy)}/toxics/{Uri.EscapeDataString(toxic)}",
            cancellationToken
        );

    /// <summary>POST /proxies/{name}/toxics/{toxic}: changes some attributes and/or the toxicity.</summary>
    public Task<ToxicConfig> UpdateToxicAsync(
        string proxy,
        string toxic,
        IReadOnlyDictionary<string, long>? attributes = null,
        float? toxicity = null,
        CancellationToken cancellationToken = default
    )
    {
        var body = new Dictionary<string, object>();
        if (attributes is not null)
            body["attributes"] = attributes;
        if (toxicity is not null)
            body["toxicity"] = toxicity.Value;
        return PostAsync<ToxicConfig>(
            $"proxies/{Uri.EscapeDataString(proxy)}/toxics/{Uri.EscapeDataString(toxic)}",
            body,
            cancellationToken
        );
    }

    /// <summary>DELETE /proxies/{name}/toxics/{toxic}.</summary>
    public async Task RemoveToxicAsync(string proxy, string toxic, CancellationToken cancellationToken = default) =>
        (
            await SendAsync(
                    HttpMethod.Delete,
                    $"proxies/{Uri.EscapeDataString(proxy)}/toxics/{Uri.EscapeDataString(toxic)}",
                    null,
                    cancellationToken
                )
                .ConfigureAwait(false)
        )?.Dispose();

    /// <summary>POST /reset: enables every proxy and removes every toxic.</summary>
    public async Task ResetAsync(CancellationToken cancellationToken = default) =>
        (await SendAsync(HttpMethod.Post, "reset", null, cancellationToken).ConfigureAwait(false))?.Dispose();

    /// <inheritdoc />
    public void Dispose()
    {
        if (_ownsHttp)
            _http.Dispose();
    }

    private async Task<T> GetAsync<T>(string path, CancellationToken cancellationToken)
    {
        using JsonDocument doc = await SendAsync(HttpMethod.Get, path, null, cancellationToken).ConfigureAwait(false);
        return doc.RootElement.Deserialize<T>(ToxiproxyJson.Options)!;
    }

    private async Task<T> PostAsync<T>(string path, object body, CancellationToken cancellationToken)
    {
        using JsonDocument doc = await SendAsync(HttpMethod.Post, path, body, cancellationToken).ConfigureAwait(false);
        return doc.RootElement.Deserialize<T>(ToxiproxyJson.Options)!;
    }

    private async Task<JsonDocument> SendAsync(
        HttpMethod method,
        string path,
        object? body,
        CancellationToken cancellationToken
    )
    {
        string text = await SendTextAsync(method, path, body, cancellationToken).ConfigureAwait(false);
        try
        {
            return JsonDocument.Parse(string.IsNullOrWhiteSpace(text) ? "null" : text);
        }
        catch (JsonException e)
        {
            throw new ToxiproxyApiException(502, $"{method} {path}: the answer is not JSON ({e.Message})");
        }
    }

    private async Task<string> SendTextAsync(
        HttpMethod method,
        string path,
        object? body,
        CancellationToken cancellationToken
    )
    {
        using var request = new HttpRequestMessage(method, new Uri(BaseUrl, path));
        if (body is not null)
            request.Content = JsonContent.Create(body, options: ToxiproxyJson.Options);
        // Toxiproxy refuses browser user agents; say who we are.
        request.Headers.UserAgent.ParseAdd("AmqpConformance.Toxiproxy/1.0");
        using HttpResponseMessage response = await _http.SendAsync(request, cancellationToken).ConfigureAwait(false);
        string text = await response.Content.ReadAsStringAsync(cancellationToken).ConfigureAwait(false);
        if (!response.IsSuccessStatusCode)
        {
            string message = text;
            string? field = null;
            try
            {
                using JsonDocument error = JsonDocument.Parse(text);
                if (error.RootElement.ValueKind == JsonValueKind.Object)
                {
                    if (
                        error.RootElement.TryGetProperty("error", out JsonElement e)
                        && e.ValueKind == JsonValueKind.String
                    )
                        message = e.GetString()!;
                    if (
                        error.RootElement.TryGetProperty("field", out JsonElement f)
                        && f.ValueKind == JsonValueKind.String
                    )
                        field = f.GetString();
                }
            }
            catch (JsonException) { } // an error body that is not JSON: the status code alone is reported
            throw new ToxiproxyApiException(
                (int)response.StatusCode,
                $"{method} {path}: {(int)response.StatusCode} {message.Trim()}",
                field
            );
        }
        return text;
    }
}
