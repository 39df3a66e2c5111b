using System.Diagnostics;
using System.Net;
using System.Net.Sockets;

namespace AmqpConformance.Toxiproxy.Tests;

/// <summary>
/// A plain loopback TCP forwarder placed between a proxy and the broker, recording the size and time of
/// every receive from the proxy: what the broker's socket saw, whichever proxy (embedded or real) is in
/// front. When the proxy's side ends (FIN or RST), the tap forwards what it got and then ends its broker
/// side with an orderly close, so the broker sees (and logs) a stream that stops wherever the proxy stopped.
/// </summary>
internal sealed class ByteTap : IAsyncDisposable
{
    private readonly Socket _listener;
    private readonly IPEndPoint _target;
    private readonly CancellationTokenSource _stop = new();
    private readonly List<TapConnection> _connections = [];
    private readonly Task _accept;

    public ByteTap(IPEndPoint target)
    {
        _target = target;
        _listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        _listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        _listener.Listen(16);
        _accept = AcceptAsync();
    }

    public int Port => ((IPEndPoint)_listener.LocalEndPoint!).Port;

    public IReadOnlyList<TapConnection> Connections
    {
        get
        {
            lock (_connections)
                return [.. _connections];
        }
    }

    public async Task<TapConnection> WaitForConnectionAsync(int index, CancellationToken ct)
    {
        while (true)
        {
            lock (_connections)
                if (_connections.Count > index)
                    return _connections[index];
            await Task.Delay(10, ct);
        }
    }

    private async Task AcceptAsync()
    {
        while (true)
        {
            Socket inbound;
            try
            {
                inbound = await _listener.AcceptAsync(_stop.Token);
            }
            catch (Exception)
            {
                return;
            }
            var outbound = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp)
            {
                NoDelay = true,
            };
            inbound.NoDelay = true;
            try
            {
                await outbound.ConnectAsync(_target, _stop.Token);
            }
            catch (Exception)
            {
                inbound.Dispose();
                outbound.Dispose();
                continue;
            }
            var c = new TapConnection(inbound, outbound, _stop.Token);
            lock (_connections)
                _connections.Add(c);
        }
    }

    public async ValueTask DisposeAsync()
    {
        _stop.Cancel();
        _listener.Dispose();
        await _accept;
        foreach (TapConnection c in Connections)
            await c.DisposeAsync();
        _stop.Dispose();
    }

    internal sealed class TapConnection : IAsyncDisposable
    {
        private readonly Socket _inbound;
        private readonly Socket _outbound;
        private readonly object _gate = new();
        private readonly List<(TimeSpan At, int Size)> _upstreamReads = [];
        private readonly Stopwatch _clock = Stopwatch.StartNew();
        private long _upstreamBytes;

        public TapConnection(Socket inbound, Socket outbound, CancellationToken stop)
        {
            _inbound = inbound;
            _outbound = outbound;
            Upstream = CopyAsync(inbound, outbound, record: true, stop);
            Downstream = CopyAsync(outbound, inbound, record: false, stop);
        }

        /// <summary>Completes when the proxy's side ended; the result says how (null = FIN, else the error).</summary>
        public Task<Exception?> Upstream { get; }
        public Task<Exception?> Downstream { get; }

        public long UpstreamBytes => Interlocked.Read(ref _upstreamBytes);

        /// <summary>Now, on the clock of <see cref="UpstreamReads"/>.</summary>
        public TimeSpan Elapsed => _clock.Elapsed;

        public IReadOnlyList<(TimeSpan At, int Size)> UpstreamReads
        {
            get
            {
                lock (_gate)
                    return [.. _upstreamReads];
            }
        }

        public async Task WaitForUpstreamBytesAsync(long atLeast, CancellationToken ct)
        {
            while (UpstreamBytes < atLeast)
                await Task.Delay(5, ct);
        }

        private async Task<Exception?> CopyAsync(Socket from, Socket to, bool record, CancellationToken stop)
        {
            var buffer = new byte[64 * 1024];
            Exception? error = null;
            try
            {
                while (true)
                {
                    int n = await from.ReceiveAsync(buffer, SocketFlags.None, stop);
                    if (n == 0)
                        break;
                    if (record)
                    {
                        lock (_gate)
                            _upstreamReads.Add((_clock.Elapsed, n));
                        Interlocked.Add(ref _upstreamBytes, n);
                    }
                    await to.SendAsync(buffer.AsMemory(0, n), SocketFlags.None, stop);
                }
            }
            catch (Exception e)
            {
                error = e;
            }
            try
            {
                to.Shutdown(SocketShutdown.Send);
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException) { } // reset or closed already: the peer sees the end either way
            return error;
        }

        public async ValueTask DisposeAsync()
        {
            _inbound.Dispose();
            _outbound.Dispose();
            await Task.WhenAll(Upstream, Downstream);
        }
    }
}
