using System.Net;
using System.Net.Sockets;

namespace AmqpConformance.Toxiproxy.Tests.Support;

/// <summary>A loopback TCP server for one connection that reads everything, recording each read's size and the
/// <see cref="ManualTimeProvider"/> time it happened at, and can echo what it reads.</summary>
internal sealed class RecordingSink : IDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly ManualTimeProvider _clock;
    private readonly bool _echo;
    private readonly object _gate = new();
    private readonly List<(TimeSpan At, int Size)> _reads = [];
    private readonly List<(long Total, TaskCompletionSource Reached)> _waiters = [];
    private long _total;

    private RecordingSink(ManualTimeProvider clock, bool echo, CancellationToken ct)
    {
        _clock = clock;
        _echo = echo;
        _listener.Start();
        Serving = ServeAsync(ct);
    }

    /// <summary>Starts listening; the first connection is served until it ends or <paramref name="ct"/> is
    /// cancelled.</summary>
    public static RecordingSink Start(ManualTimeProvider clock, CancellationToken ct, bool echo = false) =>
        new(clock, echo, ct);

    public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

    /// <summary>Ends when the served connection ended.</summary>
    public Task Serving { get; }

    public long Total
    {
        get
        {
            lock (_gate)
                return _total;
        }
    }

    public IReadOnlyList<(TimeSpan At, int Size)> Reads
    {
        get
        {
            lock (_gate)
                return [.. _reads];
        }
    }

    /// <summary>Completes once <paramref name="total"/> bytes have been read.</summary>
    public Task WaitForTotalAsync(long total, CancellationToken ct)
    {
        lock (_gate)
        {
            if (_total >= total)
                return Task.CompletedTask;
            var reached = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiters.Add((total, reached));
            return reached.Task.WaitAsync(ct);
        }
    }

    private async Task ServeAsync(CancellationToken ct)
    {
        using TcpClient peer = await _listener.AcceptTcpClientAsync(ct);
        NetworkStream stream = peer.GetStream();
        byte[] buffer = new byte[64 * 1024];
        int n;
        while ((n = await stream.ReadAsync(buffer, ct)) > 0)
        {
            var reached = new List<TaskCompletionSource>();
            lock (_gate)
            {
                _reads.Add((_clock.Now, n));
                _total += n;
                _waiters.RemoveAll(w =>
                {
                    if (w.Total > _total)
                        return false;
                    reached.Add(w.Reached);
                    return true;
                });
            }
            foreach (var r in reached)
                r.TrySetResult();
            if (_echo)
                await stream.WriteAsync(buffer.AsMemory(0, n), ct);
        }
    }

    public void Dispose() => _listener.Dispose();
}
