using System.Net;
using System.Net.Sockets;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>The baseline: a loopback TCP server that reads every byte and discards it. <see cref="ExpectAsync"/>
/// returns a task that completes when the given number of bytes has arrived over all connections.</summary>
internal sealed class RawSink : IAsyncDisposable
{
    private readonly Socket _listener = new(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
    private readonly CancellationTokenSource _stop = new();
    private readonly List<Task> _readers = [];
    private readonly Task _accept;
    private long _received;
    private long _target = long.MaxValue;
    private TaskCompletionSource _reached = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public RawSink()
    {
        _listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        _listener.Listen(16);
        Port = ((IPEndPoint)_listener.LocalEndPoint!).Port;
        _accept = Task.Run(AcceptLoopAsync);
    }

    public int Port { get; }

    /// <summary>Resets the byte count and returns a task that completes once <paramref name="bytes"/> more have
    /// arrived.</summary>
    public Task ExpectAsync(long bytes)
    {
        _reached = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Interlocked.Exchange(ref _received, 0);
        Volatile.Write(ref _target, bytes);
        return _reached.Task;
    }

    private async Task AcceptLoopAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            Socket socket;
            try
            {
                socket = await _listener.AcceptAsync(_stop.Token);
            }
            catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException or SocketException)
            {
                return; // stopped (the listener is closed by DisposeAsync): anything else fails DisposeAsync
            }
            lock (_readers)
                _readers.Add(Task.Run(() => ReadLoopAsync(socket)));
        }
    }

    private async Task ReadLoopAsync(Socket socket)
    {
        using (socket)
        {
            var buffer = new byte[256 * 1024];
            while (true)
            {
                int read;
                try
                {
                    read = await socket.ReceiveAsync(buffer, SocketFlags.None, _stop.Token);
                }
                catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException or SocketException)
                {
                    return; // stopped, or the client reset the connection: the bytes counted so far are the measure
                }
                if (read == 0)
                    return;
                if (Interlocked.Add(ref _received, read) >= Volatile.Read(ref _target))
                    _reached.TrySetResult();
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        _stop.Cancel();
        _listener.Dispose();
        await _accept;
        Task[] readers;
        lock (_readers)
            readers = [.. _readers];
        await Task.WhenAll(readers);
        _stop.Dispose();
    }
}
