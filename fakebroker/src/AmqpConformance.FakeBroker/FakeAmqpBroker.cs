using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace AmqpConformance.FakeBroker;

/// <summary>
/// An in-process AMQP 0-9-1 broker for tests: real clients connect to it over loopback TCP, or a test hands it any
/// <see cref="IDuplexPipe"/> through <see cref="Serve"/>. It validates frames like RabbitMQ 3.x (and, by default,
/// reports more: <see cref="Strictness.Strict"/>), records every frame of every connection, and keeps queues, so
/// messages round-trip to consumers. Ended connections are kept within <see cref="FakeAmqpBrokerOptions.Retention"/>'s
/// budget (then only their <see cref="ConnectionSummary"/>), so a long-running broker does not grow with every
/// connection.
/// </summary>
/// <example>
/// <code>
/// await using var broker = await FakeAmqpBroker.StartAsync(new FakeAmqpBrokerOptions { FrameMax = 4096 });
/// var factory = new ConnectionFactory { Uri = new Uri(broker.AmqpUri) };
/// // ... publish ...
/// var connection = await broker.WaitForConnectionAsync(0, ct);
/// Assert.Empty(connection.Findings);
/// </code>
/// </example>
public sealed class FakeAmqpBroker : IAsyncDisposable
{
    private readonly Dictionary<string, VirtualHost> _virtualHosts = new(StringComparer.Ordinal);
    private readonly object _gate = new();
    private readonly List<BrokerConnection> _connections = []; // open and retained ended ones, in arrival order
    private readonly Queue<(BrokerConnection Connection, long Bytes)> _ended = new(); // retained ended ones, oldest-ended first
    private readonly Queue<ConnectionSummary> _summaries = new();
    private readonly Dictionary<int, TaskCompletionSource<BrokerConnection>> _waiters = []; // by arrival index, not yet arrived
    private long _endedBytes;
    private long _evicted;
    private readonly CancellationTokenSource _stopping = new();
    private Socket? _listener;
    private Task _acceptLoop = Task.CompletedTask;
    private long _nextId;
    private int _disposed;

    private FakeAmqpBroker(FakeAmqpBrokerOptions options)
    {
        options.Validate();
        Options = options;
        Logger = (options.LoggerFactory ?? NullLoggerFactory.Instance).CreateLogger(BrokerLog.Category);
        foreach (var name in options.VirtualHosts)
            _virtualHosts[name] = new VirtualHost(name);
    }

    /// <summary>The options it runs with.</summary>
    public FakeAmqpBrokerOptions Options { get; }

    /// <summary>The broker's logger (<see cref="BrokerLog"/>'s events), from
    /// <see cref="FakeAmqpBrokerOptions.LoggerFactory"/>.</summary>
    internal ILogger Logger { get; }

    /// <summary>Starts a broker listening on <see cref="FakeAmqpBrokerOptions.Host"/>:<see cref="FakeAmqpBrokerOptions.Port"/>
    /// (port 0 picks a free one). Returns once it accepts connections.</summary>
    /// <exception cref="ArgumentException">Invalid options.</exception>
    /// <exception cref="SocketException">The address cannot be bound.</exception>
    public static Task<FakeAmqpBroker> StartAsync(
        FakeAmqpBrokerOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        cancellationToken.ThrowIfCancellationRequested();
        var broker = new FakeAmqpBroker(options ?? new FakeAmqpBrokerOptions());
        var listener = new Socket(broker.Options.Host.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            listener.Bind(new IPEndPoint(broker.Options.Host, broker.Options.Port));
            listener.Listen(128);
        }
        catch
        {
            listener.Dispose();
            throw;
        }
        broker._listener = listener;
        broker.Endpoint = (IPEndPoint)listener.LocalEndPoint!;
        BrokerLog.Listening(broker.Logger, broker.Endpoint);
        broker._acceptLoop = Task.Run(broker.AcceptLoopAsync, CancellationToken.None);
        return Task.FromResult(broker);
    }

    /// <summary>Creates a broker that does not listen: connections come only through <see cref="Serve"/> (in-memory,
    /// writer-level tests). <see cref="Endpoint"/>, <see cref="Port"/> and <see cref="AmqpUri"/> throw.</summary>
    public static FakeAmqpBroker CreateWithoutListener(FakeAmqpBrokerOptions? options = null) =>
        new(options ?? new FakeAmqpBrokerOptions());

    /// <summary>The address it listens on.</summary>
    /// <exception cref="InvalidOperationException">The broker was created without a listener.</exception>
    public IPEndPoint Endpoint
    {
        get =>
            field
            ?? throw new InvalidOperationException(
                "This broker does not listen on TCP (created with CreateWithoutListener)."
            );
        private set;
    }

    /// <summary>The TCP port it listens on.</summary>
    public int Port => Endpoint.Port;

    /// <summary>An amqp:// URI for clients: the first configured user (guest if present), the endpoint, vhost
    /// "/".</summary>
    public string AmqpUri
    {
        get
        {
            var (user, password) = Options.Users.ContainsKey("guest")
                ? ("guest", Options.Users["guest"])
                : Options.Users.Select(u => (u.Key, u.Value)).FirstOrDefault();
            string host =
                Endpoint.Address.AddressFamily == AddressFamily.InterNetworkV6
                    ? $"[{Endpoint.Address}]"
                    : Endpoint.Address.ToString();
            return $"amqp://{Uri.EscapeDataString(user ?? "")}:{Uri.EscapeDataString(password ?? "")}@{host}:{Endpoint.Port}/";
        }
    }

    /// <summary>The connections it holds, in the order they arrived: every open connection, and the ended ones that
    /// <see cref="FakeAmqpBrokerOptions.Retention"/> still keeps (by default the last 100 to end, within 64 MiB of frame
    /// logs). A connection's arrival index is <c>Id - 1</c>; use <see cref="AcceptedConnections"/> to count them all
    /// and <see cref="ConnectionSummaries"/> for those evicted.</summary>
    public IReadOnlyList<BrokerConnection> Connections
    {
        get
        {
            lock (_gate)
                return [.. _connections];
        }
    }

    /// <summary>How many connections it has served (open, ended, evicted): the arrival index the next one will
    /// get.</summary>
    public long AcceptedConnections => Interlocked.Read(ref _nextId);

    /// <summary>How many ended connections were evicted under <see cref="FakeAmqpBrokerOptions.Retention"/> (their
    /// <see cref="BrokerConnection"/> is no longer in <see cref="Connections"/>; their summary may be).</summary>
    public long EvictedConnections
    {
        get
        {
            lock (_gate)
                return _evicted;
        }
    }

    /// <summary>A summary of each ended connection, oldest-ended first: the newest
    /// <see cref="ConnectionRetention.MaxSummaries"/> (10,000 by default), whether or not the connection itself is
    /// still retained. A connection's summary is here before its <see cref="BrokerConnection.Completion"/>
    /// completes.</summary>
    public IReadOnlyList<ConnectionSummary> ConnectionSummaries
    {
        get
        {
            lock (_gate)
                return [.. _summaries];
        }
    }

    /// <summary>The connection with <paramref name="id"/> (1-based, in arrival order) while the broker holds it; null
    /// when it has not arrived or was evicted.</summary>
    public BrokerConnection? FindConnection(long id)
    {
        lock (_gate)
            return FindLocked(id);
    }

    private BrokerConnection? FindLocked(long id)
    {
        // Ids are handed out in arrival order, so the list is sorted by id.
        int lo = 0,
            hi = _connections.Count - 1;
        while (lo <= hi)
        {
            int mid = (lo + hi) >>> 1;
            long at = _connections[mid].Id;
            if (at == id)
                return _connections[mid];
            if (at < id)
                lo = mid + 1;
            else
                hi = mid - 1;
        }
        return null;
    }

    /// <summary>Raised (on the accepting thread) for each new connection, before its first byte is read.
    /// Keep handlers short; an exception from one is swallowed.</summary>
    public event Action<BrokerConnection>? ConnectionAccepted;

    /// <summary>Completes with the connection at <paramref name="index"/> (0-based, in arrival order: the connection
    /// whose <see cref="BrokerConnection.Id"/> is <paramref name="index"/> + 1) once it has arrived.</summary>
    /// <exception cref="InvalidOperationException">(in the task) That connection arrived, ended and was evicted under
    /// <see cref="FakeAmqpBrokerOptions.Retention"/>; its <see cref="ConnectionSummary"/> may still be in
    /// <see cref="ConnectionSummaries"/>.</exception>
    /// <exception cref="TaskCanceledException">(in the task) The broker was disposed before it arrived.</exception>
    public Task<BrokerConnection> WaitForConnectionAsync(int index, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(index);
        TaskCompletionSource<BrokerConnection>? waiter;
        lock (_gate)
        {
            if (index < Interlocked.Read(ref _nextId))
            {
                return FindLocked(index + 1L) is { } arrived
                    ? Task.FromResult(arrived)
                    : Task.FromException<BrokerConnection>(
                        new InvalidOperationException(
                            $"Connection {index + 1} (index {index}) ended and was evicted under FakeAmqpBrokerOptions.Retention; "
                                + "its summary may still be in FakeAmqpBroker.ConnectionSummaries."
                        )
                    );
            }
            if (Volatile.Read(ref _disposed) != 0)
                return Task.FromCanceled<BrokerConnection>(new CancellationToken(canceled: true));
            if (!_waiters.TryGetValue(index, out waiter))
                _waiters[index] = waiter = new TaskCompletionSource<BrokerConnection>(
                    TaskCreationOptions.RunContinuationsAsynchronously
                );
        }
        return waiter.Task.WaitAsync(cancellationToken);
    }

    /// <summary>
    /// Serves one AMQP connection over <paramref name="transport"/> exactly as a TCP connection is served:
    /// <see cref="IDuplexPipe.Input"/> carries the client's bytes, <see cref="IDuplexPipe.Output"/> the broker's.
    /// Returns at once; the connection runs in the background until it ends (see
    /// <see cref="BrokerConnection.Completion"/>). The connection owns both pipe ends from now on and completes them
    /// when it ends.
    /// </summary>
    /// <exception cref="ObjectDisposedException">The broker was disposed.</exception>
    public BrokerConnection Serve(IDuplexPipe transport)
    {
        ArgumentNullException.ThrowIfNull(transport);
        return ServeCore(transport, onEnded: null, "an in-memory transport");
    }

    private BrokerConnection ServeCore(IDuplexPipe transport, Action? onEnded, string remote)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        BrokerConnection connection;
        TaskCompletionSource<BrokerConnection>? waiter;
        lock (_gate)
        {
            long id = Interlocked.Increment(ref _nextId);
            connection = new BrokerConnection(this, id, transport, onEnded);
            _connections.Add(connection);
            _waiters.Remove((int)(id - 1), out waiter);
        }
        BrokerLog.ConnectionAccepted(Logger, connection.Id, remote);
        try
        {
            ConnectionAccepted?.Invoke(connection);
        }
        catch (Exception e)
        {
            BrokerLog.AcceptedHandlerFailed(Logger, connection.Id, e);
        } // a test's handler cannot break the broker
        waiter?.TrySetResult(connection);
        _ = Task.Run(connection.RunAsync);
        return connection;
    }

    /// <summary>Called by a connection as it ends, before its <see cref="BrokerConnection.Completion"/> completes:
    /// records its summary and evicts the oldest-ended connections beyond
    /// <see cref="FakeAmqpBrokerOptions.Retention"/>.</summary>
    internal void OnConnectionEnded(BrokerConnection connection)
    {
        ConnectionSummary summary = ConnectionSummary.Of(connection, DateTimeOffset.UtcNow);
        ConnectionRetention retention = Options.Retention;
        lock (_gate)
        {
            if (retention.MaxSummaries > 0)
            {
                _summaries.Enqueue(summary);
                while (_summaries.Count > retention.MaxSummaries)
                    _summaries.Dequeue();
            }
            _ended.Enqueue((connection, summary.EstimatedBytes));
            _endedBytes += summary.EstimatedBytes;
            while (
                _ended.Count > 0
                && (
                    _ended.Count > retention.MaxEndedConnections
                    || (_ended.Count > 1 && _endedBytes > retention.MaxEndedLogBytes)
                )
            )
            {
                var (oldest, bytes) = _ended.Dequeue();
                _endedBytes -= bytes;
                _connections.Remove(oldest);
                _evicted++;
            }
        }
    }

    /// <summary>A queue of a virtual host, or null when it does not exist.</summary>
    public BrokerQueue? FindQueue(string name, string virtualHost = "/") =>
        FindVirtualHost(virtualHost)?.FindQueue(name);

    /// <summary>The queues of a virtual host (empty when it does not exist).</summary>
    public IReadOnlyList<BrokerQueue> Queues(string virtualHost = "/") => FindVirtualHost(virtualHost)?.Queues() ?? [];

    internal VirtualHost? FindVirtualHost(string name) => _virtualHosts.GetValueOrDefault(name);

    private async Task AcceptLoopAsync()
    {
        var listener = _listener!;
        while (!_stopping.IsCancellationRequested)
        {
            Socket socket;
            try
            {
                socket = await listener.AcceptAsync(_stopping.Token).ConfigureAwait(false);
            }
            catch (Exception) when (_stopping.IsCancellationRequested)
            {
                return; // stopping: the accept was cancelled or its listener closed, and nothing else is lost
            }
            catch (SocketException e)
            {
                BrokerLog.AcceptFailed(Logger, e);
                continue; // a connection that died while being accepted
            }
            catch (ObjectDisposedException)
            {
                return;
            }
            try
            {
                string remote = socket.RemoteEndPoint?.ToString() ?? "an unknown address";
                var pipe = new SocketDuplexPipe(socket);
                ServeCore(pipe, pipe.Dispose, remote);
            }
            catch (ObjectDisposedException)
            {
                socket.Dispose();
                return;
            }
        }
    }

    /// <summary>Stops listening, closes every connection (connection.close 320, then the transport after at most
    /// <see cref="FakeAmqpBrokerOptions.CloseTimeout"/>), and returns once every connection loop has ended.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _stopping.Cancel();
        _listener?.Dispose();
        try
        {
            await _acceptLoop.ConfigureAwait(false);
        }
        catch (Exception e)
        {
            // the loop ends either way (it handles what accepting throws: this one is unexpected)
            BrokerLog.ExceptionSetAside(Logger, "stopping: waiting for the accept loop", e);
        }

        var connections = Connections;
        BrokerLog.Stopping(Logger, connections.Count(c => !c.Completion.IsCompleted));
        foreach (var connection in connections)
            _ = connection.CloseAsync(
                ReplyCodes.ConnectionForced,
                "CONNECTION_FORCED - broker forced connection closure with reason 'shutdown'"
            );
        var all = Task.WhenAll(connections.Select(c => c.Completion));
        try
        {
            await all.WaitAsync(Options.CloseTimeout + TimeSpan.FromSeconds(2)).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            BrokerLog.CloseAborted(
                Logger,
                connections.Count(c => !c.Completion.IsCompleted),
                Options.CloseTimeout + TimeSpan.FromSeconds(2)
            );
            foreach (var connection in connections)
                connection.Abort();
            await all.ConfigureAwait(false); // Completion never faults, and aborted loops end promptly
        }
        TaskCompletionSource<BrokerConnection>[] waiters;
        lock (_gate)
        {
            waiters = [.. _waiters.Values];
            _waiters.Clear();
        }
        foreach (var waiter in waiters)
            waiter.TrySetCanceled();
        _stopping.Dispose();
    }
}
