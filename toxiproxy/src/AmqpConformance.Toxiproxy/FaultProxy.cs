using System.Globalization;
using System.Net;
using System.Net.Sockets;
using AmqpConformance.Harness.Faults;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace AmqpConformance.Toxiproxy;

/// <summary>
/// One proxy of the embedded Toxiproxy: a loopback listener that forwards each accepted connection to the
/// upstream address through the proxy's toxics and, in process, a <see cref="FaultPlan"/> taken as it is
/// (<see cref="ApplyPlan"/>), both applied by the same <see cref="FaultPump"/> as the in-process transport.
/// Thread-safe. Created and changed through <see cref="FaultProxyRegistry"/>.
/// </summary>
/// <remarks>Toxic changes reach live connections at once, as in Toxiproxy; a toxic's toxicity is rolled
/// per connection. A plan is taken by the connections accepted while it is in force and is not a toxic: the API's
/// toxic lists do not show it, and removing or resetting toxics leaves it. Disabling or deleting the proxy closes its
/// listener and its connections.</remarks>
public sealed class FaultProxy
{
    private readonly object _gate = new();
    private readonly List<(ToxicConfig Config, Fault? Fault)> _toxics = [];
    private readonly List<(ToxicConfig Config, Fault? Fault)> _stalls = [];
    private long _stallIds;
    private AppliedFaultPlan? _plan;
    private readonly HashSet<FaultProxyConnection> _connections = [];
    private Socket? _listener;
    private CancellationTokenSource? _acceptStop;
    private string _requestedListen;
    private string _boundListen;
    private long _connectionIds;
    private readonly TimeProvider _time;
    private readonly ILogger _logger;

    internal FaultProxy(string name, string listen, string upstream, TimeProvider time, ILogger? logger = null)
    {
        _time = time;
        _logger = logger ?? NullLogger.Instance;
        Name = name;
        _requestedListen = listen;
        _boundListen = listen;
        Upstream = upstream;
    }

    /// <summary>The proxy's name.</summary>
    public string Name { get; }

    /// <summary>host:port connections are forwarded to.</summary>
    public string Upstream { get; private set; }

    /// <summary>Whether the listener is open.</summary>
    public bool Enabled
    {
        get
        {
            lock (_gate)
                return _listener is not null;
        }
    }

    /// <summary>host:port the proxy listens on (the real port once enabled).</summary>
    public string Listen
    {
        get
        {
            lock (_gate)
                return _boundListen;
        }
    }

    /// <summary>The address and port the proxy listens on while it is enabled (the real port when it was asked for port
    /// 0), for code that connects to it; null while it is disabled. <see cref="Listen"/> is the same as Toxiproxy's
    /// "host:port" text.</summary>
    public IPEndPoint? ListenEndpoint
    {
        get
        {
            lock (_gate)
                return (IPEndPoint?)_listener?.LocalEndPoint;
        }
    }

    /// <summary>Connections accepted since the proxy was created.</summary>
    public long AcceptedConnections => Interlocked.Read(ref _connectionIds);

    /// <summary>Connections currently open.</summary>
    public int OpenConnections
    {
        get
        {
            lock (_gate)
                return _connections.Count;
        }
    }

    /// <summary>Test hook: runs on the accepting task for each new connection just before it starts forwarding
    /// (after the proxy's toxics were applied to it).</summary>
    internal Action<FaultProxyConnection>? ForwardingStarting { get; set; }

    /// <summary>The fault transcripts of the connections now open (what each direction delivered, dropped,
    /// reset).</summary>
    public IReadOnlyList<FaultTranscript> OpenTranscripts()
    {
        lock (_gate)
            return [.. _connections.Select(c => c.Transcript)];
    }

    /// <summary>The fault plan new connections run (<see cref="ApplyPlan"/>), or null when there is none.</summary>
    public AppliedFaultPlan? Plan
    {
        get
        {
            lock (_gate)
                return _plan;
        }
    }

    /// <summary>Puts <paramref name="plan"/> in force, as it is, for the connections accepted from now on until
    /// <see cref="ClearPlan"/> or the next call: each runs the plan from its first byte, its pumps seeded with the
    /// plan's seed and carrying the plan's faults in plan order (stalls, resets after N bytes, black holes after N
    /// bytes, slicing, latency, bandwidth, limits, slow close), ahead of the proxy's toxics. That is what
    /// <see cref="FaultyTransport.Create"/> does in process, by the same <see cref="FaultPump"/>, so nothing is mapped
    /// or lost (unlike <see cref="FaultPlanToxics.Map"/>, which is for a real Toxiproxy). Connections already open
    /// keep what they run. The returned handle collects the connections' fault transcripts and releases held
    /// faults.</summary>
    /// <exception cref="ArgumentException">A fault value is out of range (<see cref="FaultPlan.Validate"/>).
    /// </exception>
    public AppliedFaultPlan ApplyPlan(FaultPlan plan)
    {
        ArgumentNullException.ThrowIfNull(plan);
        plan.Validate();
        var applied = new AppliedFaultPlan(plan);
        lock (_gate)
            _plan = applied;
        ProxyLog.PlanApplied(_logger, Name, plan.Seed, plan.Faults.Count);
        return applied;
    }

    /// <summary>Takes the fault plan out of force for connections accepted from now on; connections that took it keep
    /// running it until they end.</summary>
    public void ClearPlan()
    {
        lock (_gate)
            _plan = null;
    }

    /// <summary>The proxy as the API shows it.</summary>
    public ProxyConfig ToConfig()
    {
        lock (_gate)
            return new ProxyConfig
            {
                Name = Name,
                Listen = _boundListen,
                Upstream = Upstream,
                Enabled = _listener is not null,
                Toxics = ToxicsLocked(),
            };
    }

    /// <summary>The toxics, upstream ones first, each stream in the order added (Toxiproxy's order).</summary>
    public IReadOnlyList<ToxicConfig> Toxics()
    {
        lock (_gate)
            return ToxicsLocked();
    }

    /// <summary>The toxic called <paramref name="name"/>, or null.</summary>
    public ToxicConfig? FindToxic(string name)
    {
        lock (_gate)
            return _toxics.FirstOrDefault(t => t.Config.Name == name).Config;
    }

    internal void Enable()
    {
        lock (_gate)
        {
            if (_listener is not null)
                return;
            IPEndPoint endpoint = ToxiproxyValidation.ParseLoopback(_requestedListen);
            var listener = new Socket(endpoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
            ListenerBuffers.Apply(listener);
            try
            {
                listener.Bind(endpoint);
                listener.Listen(128);
            }
            catch (SocketException e)
            {
                listener.Dispose();
                string message = $"listen {_requestedListen}: {e.Message}";
                throw e.SocketErrorCode == SocketError.AddressAlreadyInUse
                    ? ToxiproxyApiException.AddressInUse("listen", message)
                    : ToxiproxyApiException.Invalid("listen", message);
            }
            _listener = listener;
            var bound = (IPEndPoint)listener.LocalEndPoint!;
            _boundListen =
                bound.AddressFamily == AddressFamily.InterNetworkV6
                    ? $"[{bound.Address}]:{bound.Port}"
                    : $"{bound.Address}:{bound.Port}";
            _acceptStop = new CancellationTokenSource();
            ProxyLog.Listening(_logger, Name, _boundListen, Upstream);
            _ = AcceptLoopAsync(listener, _acceptStop.Token);
        }
    }

    internal void Disable()
    {
        FaultProxyConnection[] open;
        lock (_gate)
        {
            if (_listener is null)
                return;
            _acceptStop!.Cancel();
            _acceptStop.Dispose();
            _acceptStop = null;
            _listener.Dispose();
            _listener = null;
            open = [.. _connections];
        }
        ProxyLog.Disabled(_logger, Name, open.Length);
        foreach (FaultProxyConnection c in open)
            c.Terminate(new FaultTermination(false, FaultDirection.Upstream, "proxy disabled"));
    }

    /// <summary>Changes the addresses and state. When the new listen address cannot be bound, the proxy goes back to
    /// its previous addresses and state and the error (409 or 400) is thrown.</summary>
    internal void Update(string listen, string upstream, bool enabled)
    {
        bool restart;
        string oldListen,
            oldUpstream;
        bool wasEnabled;
        lock (_gate)
        {
            restart = listen != _requestedListen && listen != _boundListen || upstream != Upstream;
            // Going back means the port it had, not a new free one when it was asked for port 0.
            (oldListen, oldUpstream, wasEnabled) = (
                _listener is not null ? _boundListen : _requestedListen,
                Upstream,
                _listener is not null
            );
            _requestedListen = listen;
            Upstream = upstream;
        }
        if (restart || !enabled)
            Disable();
        if (!enabled)
            return;
        try
        {
            Enable();
        }
        catch (ToxiproxyApiException) when (restart)
        {
            lock (_gate)
                (_requestedListen, Upstream) = (oldListen, oldUpstream);
            if (wasEnabled)
            {
                try
                {
                    Enable();
                }
                catch (ToxiproxyApiException)
                { /* the old port was taken meanwhile: stays disabled */
                }
            }
            throw;
        }
    }

    /// <summary>Adds a toxic (applied to open connections at once); returns it with every attribute of its type. Throws
    /// <see cref="ToxiproxyApiException"/>: 409 when the name is taken, 400 for a bad type, stream or value.</summary>
    public ToxicConfig AddToxic(ToxicConfig toxic)
    {
        ToxiproxyValidation.CheckToxic(toxic);
        Fault? fault = ToFault(toxic);
        ToxicConfig normal = ToxicTypes.Normalize(toxic);
        lock (_gate)
        {
            if (_toxics.Any(t => t.Config.Name == normal.Name))
                throw ToxiproxyApiException.ToxicExists();
            _toxics.Add((normal, fault));
            PushLocked();
        }
        ProxyLog.ToxicAdded(_logger, Name, normal.Name, normal.Type, normal.Stream, normal.Toxicity);
        return normal;
    }

    /// <summary>Changes some attributes (unknown names are ignored, as Toxiproxy does) and/or the toxicity of a toxic;
    /// open connections get the new version at once. 404 when there is no such toxic.</summary>
    public ToxicConfig UpdateToxic(string name, IReadOnlyDictionary<string, long>? attributes, float? toxicity)
    {
        lock (_gate)
        {
            int i = _toxics.FindIndex(t => t.Config.Name == name);
            if (i < 0)
                throw ToxiproxyApiException.ToxicNotFound();
            ToxicConfig old = _toxics[i].Config;
            var merged = new Dictionary<string, long>(old.Attributes);
            if (attributes is not null)
                foreach (var kv in attributes)
                    if (merged.ContainsKey(kv.Key))
                        merged[kv.Key] = kv.Value;
            ToxicConfig updated = old with { Attributes = merged, Toxicity = toxicity ?? old.Toxicity };
            ToxiproxyValidation.CheckToxic(updated);
            _toxics[i] = (updated, ToFault(updated));
            PushLocked();
            return updated;
        }
    }

    /// <summary>Removes a toxic from the proxy and its open connections (removing a timeout closes the
    /// connections it held, as in Toxiproxy). 404 when there is no such toxic.</summary>
    public void RemoveToxic(string name)
    {
        lock (_gate)
        {
            int i = _toxics.FindIndex(t => t.Config.Name == name);
            if (i < 0)
                throw ToxiproxyApiException.ToxicNotFound();
            _toxics.RemoveAt(i);
            PushLocked();
        }
        ProxyLog.ToxicRemoved(_logger, Name, name);
    }

    /// <summary>Removes every toxic.</summary>
    public void ResetToxics()
    {
        lock (_gate)
        {
            _toxics.Clear();
            PushLocked();
        }
    }

    private static Fault? ToFault(ToxicConfig toxic)
    {
        try
        {
            return ToxicTypes.ToFault(toxic);
        }
        catch (ArgumentException e)
        {
            // ToxiproxyValidation.CheckToxic came first, so this is only a backstop.
            throw ToxiproxyApiException.Invalid(
                e.ParamName is { Length: > 0 } p ? "attributes." + p : "attributes",
                e.Message.Split(" (Parameter")[0]
            );
        }
    }

    private List<ToxicConfig> ToxicsLocked() =>
        [
            .. _toxics.Where(t => t.Config.Stream == ToxicStreams.Upstream).Select(t => t.Config),
            .. _toxics.Where(t => t.Config.Stream != ToxicStreams.Upstream).Select(t => t.Config),
        ];

    /// <summary>Stalls the connections (open and new) in <paramref name="direction"/>: from now on no byte is forwarded
    /// and the proxy reads nothing more from the sender's socket (a receive already posted still completes), so the
    /// sender meets real TCP backpressure: once the kernel's buffers are full (about 240 KB from a client, whose
    /// connection the proxy keeps small: Ethernet's segment size, a 16 KiB receive buffer), its socket write blocks,
    /// part-way through what it was writing. Disposing the returned handle ends the stall; then everything held goes
    /// on. Toxiproxy has no such toxic, so this is for in-process use only and does not show in the API's toxic
    /// lists.</summary>
    public IDisposable Stall(FaultDirection direction = FaultDirection.Upstream)
    {
        var config = new ToxicConfig
        {
            Name = $"in-process stall {Interlocked.Increment(ref _stallIds)}",
            Type = "stall",
            Stream = ToxicStreams.Of(direction),
            Toxicity = 1f,
        };
        var entry = (config, (Fault?)new StallFault(0) { Direction = direction });
        lock (_gate)
        {
            _stalls.Add(entry);
            PushLocked();
        }
        return new StallRelease(this, entry);
    }

    private void EndStall((ToxicConfig Config, Fault? Fault) entry)
    {
        lock (_gate)
        {
            if (_stalls.Remove(entry))
                PushLocked();
        }
    }

    private List<(ToxicConfig Config, Fault? Fault)> AppliedLocked() => [.. _toxics, .. _stalls];

    private sealed class StallRelease(FaultProxy proxy, (ToxicConfig Config, Fault? Fault) entry) : IDisposable
    {
        public void Dispose() => proxy.EndStall(entry);
    }

    private void PushLocked()
    {
        var snapshot = AppliedLocked();
        foreach (FaultProxyConnection c in _connections)
            ApplyLocked(c, snapshot);
    }

    /// <summary>Puts the toxics and in-process stalls in force on <paramref name="connection"/>: a stalled direction's
    /// pump stops, and so does the reading of its source socket.</summary>
    private void ApplyLocked(FaultProxyConnection connection, List<(ToxicConfig Config, Fault? Fault)> snapshot)
    {
        connection.ApplyToxics(snapshot);
        foreach (FaultDirection direction in (FaultDirection[])[FaultDirection.Upstream, FaultDirection.Downstream])
            connection.HoldReceives(direction, _stalls.Any(s => s.Fault?.Direction == direction));
    }

    private async Task AcceptLoopAsync(Socket listener, CancellationToken stop)
    {
        while (!stop.IsCancellationRequested)
        {
            Socket client;
            try
            {
                client = await listener.AcceptAsync(stop).ConfigureAwait(false);
            }
            catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException or SocketException)
            {
                if (!stop.IsCancellationRequested && e is SocketException)
                    ProxyLog.AcceptFailed(_logger, Name, Listen, e);
                return;
            }
            _ = HandleAsync(client, stop);
        }
    }

    private async Task HandleAsync(Socket client, CancellationToken stop)
    {
        client.NoDelay = true;
        string from = client.RemoteEndPoint?.ToString() ?? "an unknown address";
        Socket server;
        try
        {
            (string host, int port) = ToxiproxyValidation.SplitHostPort(Upstream, "upstream");
            server = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
            using var timeout = CancellationTokenSource.CreateLinkedTokenSource(stop);
            timeout.CancelAfter(TimeSpan.FromSeconds(5));
            try
            {
                await server.ConnectAsync(host, port, timeout.Token).ConfigureAwait(false);
            }
            catch
            {
                server.Dispose();
                throw;
            }
        }
        catch (Exception e)
            when (e is SocketException or OperationCanceledException or ArgumentException or ToxiproxyApiException)
        {
            ProxyLog.UpstreamUnreachable(_logger, Name, Upstream, from, e.Message);
            client.Dispose(); // as Toxiproxy does when the upstream cannot be reached: an orderly close, not a reset
            return;
        }

        FaultProxyConnection connection;
        AppliedFaultPlan? plan;
        lock (_gate)
        {
            // Made, registered and given the plan and the toxics before it forwards a byte: the plan in force now and
            // a toxic that exists now apply from the first byte, and any toxic change from here on reaches it through
            // PushLocked.
            plan = _plan;
            connection = new FaultProxyConnection(
                Interlocked.Increment(ref _connectionIds),
                client,
                server,
                plan?.Plan.Seed ?? Random.Shared.Next(),
                plan?.Plan.Faults ?? [],
                _time
            );
            if (_listener is null || stop.IsCancellationRequested)
            {
                plan = null;
                connection.Terminate(new FaultTermination(false, FaultDirection.Upstream, "proxy disabled"));
            }
            else
            {
                _connections.Add(connection);
                ApplyLocked(connection, AppliedLocked());
                plan?.Accepted(connection);
            }
        }
        ProxyLog.ConnectionAccepted(_logger, Name, connection.Id, from, Upstream);
        connection.Start(ForwardingStarting);
        await connection.Completion.ConfigureAwait(false);
        lock (_gate)
            _connections.Remove(connection);
        plan?.Ended(connection);
        ProxyLog.ConnectionClosed(
            _logger,
            Name,
            connection.Id,
            connection.Termination is { } t
                ? $"{(t.IsReset ? "reset" : "closed")} by the proxy, {t.Direction}: {t.Reason}"
                : "both peers closed"
        );
    }
}
