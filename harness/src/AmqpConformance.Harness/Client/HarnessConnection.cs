using System.Buffers;
using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using System.Text;
using AmqpConformance.Harness.Reports;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Transport;

namespace AmqpConformance.Harness.Client;

/// <summary>
/// The harness's own minimal AMQP 0-9-1 client: just enough to drive a frame writer against a broker end to end.
/// It connects over TCP or over any <see cref="IDuplexPipe"/> (pair it with <c>FakeAmqpBroker.Serve</c>), logs in with
/// PLAIN, tunes, opens the virtual host, then sends every command through the <see cref="IFrameWriter"/> made by
/// <see cref="HarnessClientOptions.WriterFactory"/>.
/// </summary>
/// <remarks>
/// <para><b>What goes through the writer:</b> the handshake (protocol header, start-ok, tune-ok, open) is written
/// straight to the transport before the writer exists, because the writer needs the negotiated frame_max. From
/// connection.open-ok on, the writer is the only thing that writes to the output: publishes and every control
/// command (channel.open, confirm.select, channel.close(-ok), connection.close(-ok), heartbeats) go through it as
/// commands, so the writer under test sees a realistic mix and nothing else races it for the
/// <see cref="PipeWriter"/>.</para>
/// <para><b>Reading:</b> one loop reads the broker's frames: it completes channel requests, settles publisher
/// confirms (multiple=true included), ignores heartbeats and content, answers a broker's channel.close with
/// close-ok, and answers a broker's connection.close with close-ok and then faults the connection with a
/// <see cref="HarnessConnectionException"/> carrying the reply code and text. The end of the input without a
/// close handshake faults it too.</para>
/// </remarks>
public sealed class HarnessConnection : IAsyncDisposable
{
    private readonly IDuplexPipe _transport;
    private readonly HarnessClientOptions _options;
    private readonly Dictionary<ushort, HarnessChannel> _channels = [];
    private readonly TaskCompletionSource _closeOk = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _ended = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly CancellationTokenSource _stopHeartbeats = new();
    private IFrameWriter? _writer;
    private Task _readLoop = Task.CompletedTask;
    private Task _heartbeatLoop = Task.CompletedTask;
    private Exception? _fault;
    private ushort _nextChannel;
    private int _closing;
    private int _disposed;

    private HarnessConnection(IDuplexPipe transport, HarnessClientOptions options)
    {
        _transport = transport;
        _options = options;
    }

    /// <summary>The options it runs with.</summary>
    public HarnessClientOptions Options => _options;

    /// <summary>The negotiated frame_max (0 = unlimited).</summary>
    public int FrameMax { get; private set; }

    /// <summary>The negotiated channel_max (0 = no limit).</summary>
    public ushort ChannelMax { get; private set; }

    /// <summary>The heartbeat interval sent in tune-ok, in seconds (0 = off).</summary>
    public ushort HeartbeatSeconds { get; private set; }

    /// <summary>The broker's connection.start server properties.</summary>
    public FieldTable ServerProperties { get; private set; } = FieldTable.Empty;

    /// <summary>The writer under test, created after tuning.</summary>
    public IFrameWriter Writer => _writer ?? throw new InvalidOperationException("The connection is not open yet.");

    /// <summary>Why the connection failed, or null while it is healthy (or was closed by this client).</summary>
    public Exception? Fault => Volatile.Read(ref _fault);

    /// <summary>Completes when the connection has ended: closed by either side or failed.</summary>
    public Task Ended => _ended.Task;

    /// <summary>Connects over loopback TCP (Nagle off) and opens the connection.</summary>
    /// <exception cref="HarnessConnectionException">The broker refused or broke off the handshake.</exception>
    /// <exception cref="SocketException">Nothing listens at <paramref name="endpoint"/>.</exception>
    public static async Task<HarnessConnection> ConnectAsync(
        IPEndPoint endpoint,
        HarnessClientOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(endpoint);
        var socket = new Socket(endpoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            await socket.ConnectAsync(endpoint, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
        var stream = new NetworkStream(socket, ownsSocket: true);
        var transport = new DuplexPipe(PipeReader.Create(stream), PipeWriter.Create(stream));
        return await ConnectAsync(transport, options, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Connects to <paramref name="host"/>:<paramref name="port"/> over TCP and opens the
    /// connection.</summary>
    public static async Task<HarnessConnection> ConnectAsync(
        string host,
        int port,
        HarnessClientOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(host);
        var addresses = await Dns.GetHostAddressesAsync(host, cancellationToken).ConfigureAwait(false);
        var address = addresses.FirstOrDefault(a => a.AddressFamily == AddressFamily.InterNetwork) ?? addresses.First();
        return await ConnectAsync(new IPEndPoint(address, port), options, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Opens a connection over an existing transport, e.g. the client end of
    /// <see cref="DuplexPipe.CreatePair"/>. The connection owns the transport from now on and completes both ends when
    /// it ends.</summary>
    /// <exception cref="HarnessConnectionException">The broker refused or broke off the handshake.</exception>
    public static async Task<HarnessConnection> ConnectAsync(
        IDuplexPipe transport,
        HarnessClientOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(transport);
        options ??= new HarnessClientOptions();
        options.Validate();
        var connection = new HarnessConnection(transport, options);
        try
        {
            using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            timeout.CancelAfter(options.RequestTimeout);
            try
            {
                await connection.HandshakeAsync(timeout.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                throw new HarnessConnectionException(
                    $"The broker did not complete the handshake within {options.RequestTimeout.TotalSeconds:0.###} s."
                );
            }
        }
        catch
        {
            await connection.AbortTransportAsync().ConfigureAwait(false);
            throw;
        }
        connection.Start();
        return connection;
    }

    /// <summary>Opens a channel (channel.open / open-ok through the writer), optionally in confirm mode
    /// (confirm.select).</summary>
    /// <exception cref="HarnessConnectionException">The connection failed, or the broker refused.</exception>
    public async Task<HarnessChannel> OpenChannelAsync(
        bool confirms = false,
        CancellationToken cancellationToken = default
    )
    {
        ThrowIfFailed();
        HarnessChannel channel;
        lock (_channels)
        {
            ushort limit = ChannelMax == 0 ? ushort.MaxValue : ChannelMax;
            if (_nextChannel >= limit)
                throw new InvalidOperationException($"No channel numbers left (channel_max {ChannelMax}).");
            channel = new HarnessChannel(this, ++_nextChannel);
            _channels.Add(channel.Number, channel);
        }
        await channel.OpenAsync(cancellationToken).ConfigureAwait(false);
        if (confirms)
            await channel.EnableConfirmsAsync(cancellationToken).ConfigureAwait(false);
        return channel;
    }

    /// <summary>
    /// Closes the connection: connection.close through the writer, waits for close-ok (up to
    /// <see cref="HarnessClientOptions.CloseTimeout"/>), disposes the writer (which drains what it holds, bounded by
    /// its own timeout), then completes the transport. Never hangs; a failed connection skips the close handshake.
    /// </summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        Volatile.Write(ref _closing, 1);
        if (Fault is null && _writer is not null)
        {
            try
            {
                using var timeout = new CancellationTokenSource(_options.CloseTimeout);
                var close = CommandBuilder.Build(
                    _options.Pool,
                    FrameMax,
                    0,
                    new ConnectionClose { ReplyCode = 200, ReplyText = "Goodbye" }
                );
                await _writer.WriteAsync(close, timeout.Token).ConfigureAwait(false);
                await _closeOk.Task.WaitAsync(timeout.Token).ConfigureAwait(false);
            }
            catch (Exception e)
            {
                // best effort: the transport is torn down below either way
                SwallowedExceptions.Record("closing the connection: connection.close and its close-ok", e);
            }
        }
        _stopHeartbeats.Cancel();
        try
        {
            await _heartbeatLoop.WaitAsync(_options.CloseTimeout).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            SwallowedExceptions.Record("closing the connection: waiting for the heartbeat loop", e);
        }
        if (_writer is not null)
            await _writer.DisposeAsync().ConfigureAwait(false);
        await AbortTransportAsync().ConfigureAwait(false);
        try
        {
            await _readLoop.WaitAsync(_options.CloseTimeout).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            SwallowedExceptions.Record("closing the connection: waiting for the read loop", e);
        }
        _ended.TrySetResult();
        _stopHeartbeats.Dispose();
    }

    /// <inheritdoc />
    public override string ToString() =>
        $"HarnessConnection(frame_max {FrameMax}, writer {_options.WriterFactory.Name}{(Fault is { } f ? $", failed: {f.Message}" : "")})";

    /// <summary>Builds <paramref name="method"/> as a command and writes it through the writer.</summary>
    internal ValueTask SendAsync(ushort channel, IAmqpMethod method, CancellationToken cancellationToken)
    {
        ThrowIfFailed();
        var command = CommandBuilder.Build(_options.Pool, FrameMax, channel, method);
        return WatchAsync(Writer.WriteAsync(command, cancellationToken));
    }

    /// <summary>Builds a basic.publish command and writes it through the writer; the owner travels with the
    /// command.</summary>
    internal ValueTask PublishAsync(
        ushort channel,
        string exchange,
        string routingKey,
        bool mandatory,
        BasicProperties? properties,
        ReadOnlyMemory<byte> body,
        IDisposable? bodyOwner,
        CancellationToken cancellationToken
    )
    {
        OutgoingCommand command;
        try
        {
            command = CommandBuilder.BuildPublish(
                _options.Pool,
                FrameMax,
                channel,
                exchange,
                routingKey,
                mandatory,
                properties,
                body,
                bodyOwner
            );
        }
        catch
        {
            bodyOwner?.Dispose(); // never reached the writer: the owner is still ours to dispose
            throw;
        }
        return WatchAsync(Writer.WriteAsync(command, cancellationToken));
    }

    /// <summary>Passes a writer call through; a writer that reports its output broken fails the connection too,
    /// so later calls and disposal do not wait for a broker that can no longer hear them.</summary>
    private ValueTask WatchAsync(ValueTask call)
    {
        if (call.IsCompletedSuccessfully)
            return call;
        return Awaited(call);

        async ValueTask Awaited(ValueTask pending)
        {
            try
            {
                await pending.ConfigureAwait(false);
            }
            catch (FrameWriterFaultedException ex)
            {
                Fail(
                    new HarnessConnectionException(
                        $"The frame writer's output failed: {ex.InnerException?.Message ?? ex.Message}",
                        ex
                    )
                );
                throw;
            }
        }
    }

    internal void ThrowIfFailed()
    {
        if (Fault is { } fault)
            throw fault as HarnessConnectionException
                ?? new HarnessConnectionException($"The connection has failed: {fault.Message}", fault);
        if (Volatile.Read(ref _disposed) != 0)
            throw new ObjectDisposedException(nameof(HarnessConnection));
    }

    internal void ForgetChannel(ushort number)
    {
        lock (_channels)
            _channels.Remove(number);
    }

    private async Task HandshakeAsync(CancellationToken cancellationToken)
    {
        var tuning = await ClientHandshake.OpenAsync(_transport, _options, cancellationToken).ConfigureAwait(false);
        ServerProperties = tuning.ServerProperties;
        FrameMax = tuning.FrameMax;
        ChannelMax = tuning.ChannelMax;
        HeartbeatSeconds = tuning.HeartbeatSeconds;
    }

    private void Start()
    {
        _writer = _options.WriterFactory.CreateWriter(
            new WriterContext(_transport.Output, _options.Pool, FrameMax)
            {
                QueueCapacity = _options.WriterQueueCapacity,
            }
        );
        _readLoop = Task.Run(ReadLoopAsync);
        if (HeartbeatSeconds > 0)
            _heartbeatLoop = Task.Run(HeartbeatLoopAsync);
    }

    private async Task ReadLoopAsync()
    {
        var input = _transport.Input;
        long maxPayload = FrameReader.MaxPayloadFor((uint)FrameMax);
        try
        {
            while (true)
            {
                var result = await input.ReadAsync().ConfigureAwait(false);
                var buffer = result.Buffer;
                bool stop = false;
                try
                {
                    while (!stop)
                    {
                        var status = FrameReader.TryReadFrame(ref buffer, maxPayload, out var frame);
                        if (status == FrameReadStatus.NeedMoreData)
                            break;
                        if (status != FrameReadStatus.Frame)
                            throw new HarnessConnectionException(
                                $"The broker sent a malformed frame ({status}: {frame})."
                            );
                        stop = HandleFrame(frame);
                    }
                }
                finally
                {
                    input.AdvanceTo(buffer.Start, buffer.End);
                }
                if (stop)
                    break;
                if (result.IsCompleted || result.IsCanceled)
                {
                    if (Volatile.Read(ref _closing) == 0)
                        throw new HarnessConnectionException(
                            "The broker ended the connection without a close handshake (end of stream)."
                        );
                    break;
                }
            }
        }
        catch (Exception ex) when (Volatile.Read(ref _closing) == 0 || ex is HarnessConnectionException)
        {
            Fail(
                ex as HarnessConnectionException
                    ?? new HarnessConnectionException($"Reading from the broker failed: {ex.Message}", ex)
            );
        }
        catch (Exception e)
        {
            // reading stopped because this client is closing: not a failure
            SwallowedExceptions.Record("closing the connection: reading from the broker", e);
        }
        _closeOk.TrySetResult();
        _ended.TrySetResult();
    }

    /// <summary>Handles one frame from the broker; returns true when the connection is over.</summary>
    private bool HandleFrame(in RawFrame frame)
    {
        if (frame.Type != FrameType.Method)
            return false; // heartbeats, and content of deliveries/returns, are ignored
        var method = MethodCodec.Decode(frame.Payload);
        if (frame.Channel == 0)
        {
            switch (method)
            {
                case ConnectionClose close:
                    var fault = new HarnessConnectionException(
                        $"The broker closed the connection: {close.ReplyCode} {close.ReplyText} (failing method {close.FailingClassId}.{close.FailingMethodId}).",
                        replyCode: close.ReplyCode,
                        replyText: close.ReplyText
                    );
                    Fail(fault);
                    _ = ReplyBestEffortAsync(0, new ConnectionCloseOk());
                    return true;
                case ConnectionCloseOk:
                    _closeOk.TrySetResult();
                    return true;
                default:
                    return false; // connection.blocked/unblocked, update-secret-ok: nothing to do here
            }
        }
        HarnessChannel? channel;
        lock (_channels)
            _channels.TryGetValue(frame.Channel, out channel);
        channel?.HandleMethod(method);
        return false;
    }

    /// <summary>Sends a reply the reader loop owes the broker without blocking the loop on a stalled writer.</summary>
    internal async Task ReplyBestEffortAsync(ushort channel, IAmqpMethod reply)
    {
        try
        {
            var command = CommandBuilder.Build(_options.Pool, FrameMax, channel, reply);
            using var timeout = new CancellationTokenSource(_options.CloseTimeout);
            await Writer.WriteAsync(command, timeout.Token).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            // the connection is going away anyway
            SwallowedExceptions.Record($"replying {reply.GetType().Name} to the broker (best effort)", e);
        }
    }

    private async Task HeartbeatLoopAsync()
    {
        var interval = TimeSpan.FromSeconds(HeartbeatSeconds / 2.0);
        try
        {
            while (!_stopHeartbeats.IsCancellationRequested && Fault is null)
            {
                await Task.Delay(interval, _stopHeartbeats.Token).ConfigureAwait(false);
                byte[] frame = _options.Pool.Rent(AmqpConstants.FrameOverhead);
                FrameFormat.WriteHeader(frame, FrameType.Heartbeat, 0, 0);
                frame[AmqpConstants.FrameHeaderSize] = AmqpConstants.FrameEnd;
                await Writer
                    .WriteAsync(
                        new OutgoingCommand(0, frame, AmqpConstants.FrameOverhead, hasContent: false),
                        _stopHeartbeats.Token
                    )
                    .ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (_stopHeartbeats.IsCancellationRequested)
        {
            // stopped: the connection is closing, and there is nothing left to send
        }
        catch (Exception e)
        {
            // the writer failed (the reader or the next publish reports that)
            SwallowedExceptions.Record("sending a heartbeat", e);
        }
    }

    private void Fail(Exception fault)
    {
        if (Interlocked.CompareExchange(ref _fault, fault, null) is not null)
            return;
        HarnessChannel[] channels;
        lock (_channels)
            channels = [.. _channels.Values];
        foreach (var channel in channels)
            channel.Fail(fault);
        _closeOk.TrySetResult();
        _ended.TrySetResult();
    }

    private async Task AbortTransportAsync()
    {
        try
        {
            await _transport.Output.CompleteAsync().ConfigureAwait(false);
        }
        catch (Exception e)
        {
            SwallowedExceptions.Record("aborting the transport: completing its output", e);
        }
        try
        {
            _transport.Input.CancelPendingRead();
        }
        catch (Exception e)
        {
            SwallowedExceptions.Record("aborting the transport: cancelling its pending read", e);
        }
        try
        {
            await _readLoop.WaitAsync(_options.CloseTimeout).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            SwallowedExceptions.Record("closing the connection: waiting for the read loop", e);
        }
        try
        {
            await _transport.Input.CompleteAsync().ConfigureAwait(false);
        }
        catch (Exception e)
        {
            SwallowedExceptions.Record("aborting the transport: completing its input", e);
        }
    }
}
