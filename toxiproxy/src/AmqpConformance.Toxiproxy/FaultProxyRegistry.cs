using System.Text.Json;
using AmqpConformance.Harness.Faults;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace AmqpConformance.Toxiproxy;

/// <summary>
/// The proxies of a Toxiproxy stand-in, by name: create, change, delete, populate and reset them with Toxiproxy's
/// semantics and error codes (<see cref="ToxiproxyApiException"/>). No HTTP: the suites use it directly, and the
/// <c>AmqpConformance.Toxiproxy.Server</c> package serves it over Toxiproxy's HTTP API. Thread-safe.
/// </summary>
/// <remarks>Disposal stops every proxy, closing their connections.</remarks>
public sealed class FaultProxyRegistry : IAsyncDisposable
{
    private readonly object _gate = new();
    private readonly Dictionary<string, FaultProxy> _proxies = new(StringComparer.Ordinal);
    private readonly TimeProvider _time;
    private ILogger _logger = NullLogger.Instance;

    /// <summary>Creates an empty registry.</summary>
    /// <param name="time">The clock its proxies' toxics run on (latency, bandwidth, slicer delays, timeouts); default
    /// <see cref="TimeProvider.System"/>. Tests pass a manual clock to run toxics on virtual time.</param>
    public FaultProxyRegistry(TimeProvider? time = null) => _time = time ?? TimeProvider.System;

    /// <summary>Where its proxies log (category <c>AmqpConformance.Toxiproxy</c>): each connection forwarded and ended
    /// at Information, an unreachable upstream at Warning, a failed listener at Error, listener, toxic and fault plan
    /// changes at Debug; nothing per chunk. Null (the default) logs nothing (<c>NullLoggerFactory</c>). The registry
    /// never disposes the factory. Logging runs on the proxy's own tasks, so a provider that blocks would stall them:
    /// give it a non-blocking one.</summary>
    public ILoggerFactory? LoggerFactory
    {
        get;
        init
        {
            field = value;
            _logger = (value ?? NullLoggerFactory.Instance).CreateLogger(ProxyLog.Category);
        }
    }

    /// <summary>The proxies, by name.</summary>
    public IReadOnlyDictionary<string, FaultProxy> Proxies
    {
        get
        {
            lock (_gate)
                return new Dictionary<string, FaultProxy>(_proxies);
        }
    }

    /// <summary>Creates (and, when enabled, starts) a proxy. 409 when the name or the listen address is taken, 400 on
    /// bad input (<see cref="ToxiproxyValidation"/>).</summary>
    public ProxyConfig CreateProxy(ProxyConfig config)
    {
        ArgumentNullException.ThrowIfNull(config);
        ToxiproxyValidation.CheckName(config.Name, "name");
        string listen = string.IsNullOrEmpty(config.Listen) ? "127.0.0.1:0" : config.Listen;
        CheckAddresses(listen, config.Upstream, "");
        var proxy = new FaultProxy(config.Name, listen, config.Upstream, _time, _logger);
        lock (_gate)
        {
            if (_proxies.ContainsKey(config.Name))
                throw ToxiproxyApiException.ProxyExists();
            if (config.Enabled)
                proxy.Enable();
            _proxies.Add(config.Name, proxy);
        }
        return proxy.ToConfig();
    }

    /// <summary>The proxy called <paramref name="name"/>; 404 when there is none.</summary>
    public FaultProxy GetProxy(string name)
    {
        lock (_gate)
            return _proxies.TryGetValue(name, out FaultProxy? p) ? p : throw ToxiproxyApiException.ProxyNotFound();
    }

    /// <summary>Changes a proxy's listen, upstream and enabled (null keeps the current value).</summary>
    public ProxyConfig UpdateProxy(string name, string? listen, string? upstream, bool? enabled)
    {
        FaultProxy proxy = GetProxy(name);
        string newListen = string.IsNullOrEmpty(listen) ? proxy.Listen : listen;
        string newUpstream = string.IsNullOrEmpty(upstream) ? proxy.Upstream : upstream;
        CheckAddresses(newListen, newUpstream, "");
        proxy.Update(newListen, newUpstream, enabled ?? proxy.Enabled);
        return proxy.ToConfig();
    }

    /// <summary>Stops and removes a proxy; 404 when there is none.</summary>
    public void DeleteProxy(string name)
    {
        FaultProxy proxy;
        lock (_gate)
        {
            if (!_proxies.Remove(name, out proxy!))
                throw ToxiproxyApiException.ProxyNotFound();
        }
        proxy.Disable();
    }

    /// <summary>Creates the proxies that do not exist, replaces those whose listen/upstream differ, and
    /// keeps the identical ones (Toxiproxy's populate). Validates all before changing any.</summary>
    public IReadOnlyList<ProxyConfig> Populate(IReadOnlyList<ProxyConfig> configs)
    {
        ArgumentNullException.ThrowIfNull(configs);
        for (int i = 0; i < configs.Count; i++)
        {
            ArgumentNullException.ThrowIfNull(configs[i]);
            ToxiproxyValidation.CheckName(configs[i].Name, $"[{i}].name");
            CheckAddresses(
                string.IsNullOrEmpty(configs[i].Listen) ? "127.0.0.1:0" : configs[i].Listen,
                configs[i].Upstream,
                $"[{i}]."
            );
        }
        var result = new List<ProxyConfig>();
        foreach (ProxyConfig c in configs)
        {
            FaultProxy? existing;
            lock (_gate)
                _proxies.TryGetValue(c.Name, out existing);
            if (
                existing is not null
                && existing.Upstream == c.Upstream
                && (string.IsNullOrEmpty(c.Listen) || c.Listen == existing.Listen)
            )
            {
                existing.Update(existing.Listen, existing.Upstream, c.Enabled);
                result.Add(existing.ToConfig());
                continue;
            }
            if (existing is not null)
                DeleteProxy(c.Name);
            result.Add(CreateProxy(c));
        }
        return result;
    }

    /// <summary>Enables every proxy and removes every toxic (Toxiproxy's POST /reset). A proxy whose listen address was
    /// taken meanwhile stays disabled; the others are still reset, then the first such error (409) is thrown.</summary>
    public void Reset()
    {
        ToxiproxyApiException? first = null;
        foreach (FaultProxy p in Proxies.Values)
        {
            p.ResetToxics();
            try
            {
                p.Enable();
            }
            catch (ToxiproxyApiException e)
            {
                first ??= e;
            }
        }
        if (first is not null)
            throw first;
    }

    /// <summary>Stops every proxy and forgets them.</summary>
    public ValueTask DisposeAsync()
    {
        foreach (FaultProxy p in Proxies.Values)
            p.Disable();
        lock (_gate)
            _proxies.Clear();
        return ValueTask.CompletedTask;
    }

    private static void CheckAddresses(string listen, string? upstream, string fieldPrefix)
    {
        ToxiproxyValidation.ParseLoopback(listen, fieldPrefix + "listen");
        ToxiproxyValidation.SplitHostPort(upstream, fieldPrefix + "upstream");
    }

    /// <summary>Reads a new toxic from a JSON body as Toxiproxy does (stream defaults to downstream, toxicity to 1,
    /// name to "{type}_{stream}"), checked by <see cref="ToxiproxyValidation.CheckToxic"/>: 400 naming the field
    /// otherwise.</summary>
    public static ToxicConfig ParseNewToxic(JsonElement body)
    {
        if (body.ValueKind != JsonValueKind.Object)
            throw ToxiproxyApiException.BadRequest("expected a JSON object");
        ToxicConfig toxic;
        try
        {
            toxic = body.Deserialize<ToxicConfig>(ToxiproxyJson.Options)
                ?? throw ToxiproxyApiException.BadRequest("null");
        }
        catch (JsonException e)
        {
            throw ToxiproxyApiException.FromJson(e, "body");
        }
        if (
            string.IsNullOrEmpty(toxic.Name)
            && ToxicTypes.IsKnown(toxic.Type)
            && ToxicStreams.TryParse(toxic.Stream, out FaultDirection _)
        )
            toxic = toxic with { Name = $"{toxic.Type}_{toxic.Stream}" };
        ToxiproxyValidation.CheckToxic(toxic);
        return toxic;
    }
}
