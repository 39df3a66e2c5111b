using System.Buffers;
using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using AmqpConformance.Protocol;
using AmqpConformance.TestSupport.Peers;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>
/// The race's ceiling: the smallest loopback server the same <see cref="ConfirmPublisher"/> can run against. Per
/// connection it plays the broker's side of the setup with the test peer (<see cref="AmqpTestBroker"/>: handshake with
/// frame_max 131072 and no heartbeats, channel.open-ok, confirm.select-ok, queue.declare-ok naming a queue that does
/// not exist), then reads the socket straight into one reused 256 KiB buffer, walks it with a
/// <see cref="PublishScanner"/> (frame headers and end octets, no copy of a body, nothing recorded or kept) and, after
/// each read that completed publishes, sends one basic.ack with multiple=true up to the last complete one. It answers
/// connection.close with close-ok. What it measures is the socket, the kernel's copies and the publisher: any broker
/// that stores what it confirms does at least this much, so fake/RabbitMQ cannot honestly exceed sink/RabbitMQ by much.
/// </summary>
internal sealed class ConfirmingSink : IAsyncDisposable
{
    private const int ReadBuffer = 256 * 1024;

    private readonly Socket _listener = new(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
    private readonly CancellationTokenSource _stop = new();
    private readonly List<Task> _connections = [];
    private readonly Task _accept;
    private int _accepted;
    private Exception? _failure;

    public ConfirmingSink()
    {
        _listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        _listener.Listen(64);
        Endpoint = (IPEndPoint)_listener.LocalEndPoint!;
        _accept = Task.Run(AcceptLoopAsync);
    }

    /// <summary>Where it listens (127.0.0.1, an ephemeral port).</summary>
    public IPEndPoint Endpoint { get; }

    /// <summary>The first failure of any connection (a frame that did not end with 0xCE, an unexpected setup method),
    /// or null.</summary>
    public Exception? Failure => Volatile.Read(ref _failure);

    private async Task AcceptLoopAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            Socket socket;
            try
            {
                socket = await _listener.AcceptAsync(_stop.Token).ConfigureAwait(false);
            }
            catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException or SocketException)
            {
                return; // stopped (the listener is closed by DisposeAsync): anything else fails DisposeAsync
            }
            int id = Interlocked.Increment(ref _accepted);
            lock (_connections)
                _connections.Add(Task.Run(() => ServeAsync(socket, id)));
        }
    }

    private async Task ServeAsync(Socket socket, int id)
    {
        using (socket)
        {
            try
            {
                socket.NoDelay = true;
                ushort channel = await SetUpAsync(socket, id, _stop.Token).ConfigureAwait(false);
                await ConfirmLoopAsync(socket, channel, _stop.Token).ConfigureAwait(false);
            }
            catch (Exception e)
                when (e is OperationCanceledException or SocketException or IOException && _stop.IsCancellationRequested
                )
            {
                // Disposed while a connection was still open.
            }
            catch (Exception e)
            {
                Interlocked.CompareExchange(ref _failure, e, null);
            }
        }
    }

    /// <summary>Handshake, channel, confirms and the queue, with the test peer over pipes that leave the socket open.
    /// The publisher sends nothing after queue.declare until it has declare-ok, so no publish byte is left in these
    /// pipes. Returns the channel the publisher opened.</summary>
    private static async Task<ushort> SetUpAsync(Socket socket, int id, CancellationToken ct)
    {
        await using var stream = new NetworkStream(socket, ownsSocket: false);
        await using AmqpTestBroker peer = AmqpTestBroker.Over(
            PipeReader.Create(stream, new StreamPipeReaderOptions(leaveOpen: true)),
            PipeWriter.Create(stream, new StreamPipeWriterOptions(leaveOpen: true))
        );
        await peer.HandshakeAsync(
                new ConnectionTune
                {
                    ChannelMax = 2047,
                    FrameMax = 131072,
                    Heartbeat = 0,
                },
                ct,
                "PLAIN"
            )
            .ConfigureAwait(false);
        (ushort channel, IAmqpMethod open) = await peer.ReadMethodAsync(ct).ConfigureAwait(false);
        if (open is not ChannelOpen)
            throw new InvalidDataException($"expected channel.open, got {open}");
        await peer.SendMethodAsync(channel, new ChannelOpenOk(), ct).ConfigureAwait(false);
        await peer.ExpectAsync<ConfirmSelect>(ct).ConfigureAwait(false);
        await peer.SendMethodAsync(channel, new ConfirmSelectOk(), ct).ConfigureAwait(false);
        await peer.ExpectAsync<QueueDeclare>(ct).ConfigureAwait(false);
        await peer.SendMethodAsync(channel, new QueueDeclareOk { Queue = $"sink-{id}" }, ct).ConfigureAwait(false);
        return channel;
    }

    /// <summary>Reads and discards until connection.close, acking (multiple, on <paramref name="channel"/>) after every
    /// read that completed publishes.</summary>
    private static async Task ConfirmLoopAsync(Socket socket, ushort channel, CancellationToken ct)
    {
        var buffer = GC.AllocateUninitializedArray<byte>(ReadBuffer, pinned: true);
        var scanner = new PublishScanner();
        var reply = new ArrayBufferWriter<byte>(64);
        long acked = 0;
        while (true)
        {
            int read = await socket.ReceiveAsync(buffer, SocketFlags.None, ct).ConfigureAwait(false);
            if (read == 0)
                return;
            scanner.Scan(buffer.AsSpan(0, read));
            reply.ResetWrittenCount();
            if (scanner.Completed > acked)
            {
                acked = scanner.Completed;
                reply.WriteMethodFrame(channel, new BasicAck { DeliveryTag = (ulong)acked, Multiple = true });
            }
            if (scanner.CloseRequested)
                reply.WriteMethodFrame(0, new ConnectionCloseOk());
            if (reply.WrittenCount > 0)
                await socket.SendAsync(reply.WrittenMemory, SocketFlags.None, ct).ConfigureAwait(false);
            if (scanner.CloseRequested)
                return;
        }
    }

    /// <summary>Stops listening and ends every connection still open.</summary>
    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        _listener.Dispose();
        await _accept.ConfigureAwait(false);
        Task[] connections;
        lock (_connections)
            connections = [.. _connections];
        await Task.WhenAll(connections).ConfigureAwait(false);
        _stop.Dispose();
    }
}
