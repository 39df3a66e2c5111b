using System.IO.Pipelines;
using System.Security.Cryptography;
using System.Threading.Channels;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using Microsoft.Extensions.Logging;

namespace AmqpConformance.FakeBroker;

/// <summary>
/// One client connection to the <see cref="FakeAmqpBroker"/>, served over any <see cref="IDuplexPipe"/> (a TCP socket or
/// an in-memory pipe). Records every frame in <see cref="Log"/>, validates like RabbitMQ 3.x (and, in the strict
/// profile, reports more), and keeps what was published.
/// </summary>
/// <remarks>
/// <para>Threads. One loop reads and handles the client's frames; one loop writes the broker's frames (so they never
/// interleave); an optional timer sends heartbeats. Deliveries caused by other connections' publishes are queued to
/// the writer loop. Every public member is safe to call from any thread.</para>
/// <para>Ownership. The connection owns the transport it serves: when it ends it completes
/// <see cref="IDuplexPipe.Input"/> and <see cref="IDuplexPipe.Output"/> (and closes the socket, for TCP).</para>
/// </remarks>
public sealed partial class BrokerConnection
{
    private readonly FakeAmqpBroker _broker;
    private readonly FakeAmqpBrokerOptions _options;
    private readonly IDuplexPipe _transport;
    private readonly Action? _onEnded;
    private readonly Channel<OutboundItem> _outbound = Channel.CreateUnbounded<OutboundItem>(
        new UnboundedChannelOptions { SingleReader = true }
    );
    private readonly CancellationTokenSource _abort = new();
    private readonly TaskCompletionSource _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource<bool> _opened = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly object _stateGate = new();
    private readonly List<DeliveredMessage> _published = [];
    private volatile bool _closing;
    private volatile ConnectionCloseInfo? _closeInfo;
    private Timer? _closeTimer;
    private long _lastReceivedTimestamp;
    private readonly TimeProvider _clock;
    private readonly ILogger _logger;

    internal BrokerConnection(FakeAmqpBroker broker, long id, IDuplexPipe transport, Action? onEnded)
    {
        _broker = broker;
        _options = broker.Options;
        _logger = broker.Logger;
        _transport = transport;
        _onEnded = onEnded;
        Id = id;
        Log = new FrameLog(id, _options.FrameLog);
        FrameMax = AmqpConstants.FrameMinSize;
        _clock = _options.HeartbeatClock;
        _lastReceivedTimestamp = _clock.GetTimestamp();
        _lastSentTimestamp = _lastReceivedTimestamp;
    }

    /// <summary>The broker's id for this connection: 1, 2, 3, ... in the order connections were accepted.</summary>
    public long Id { get; }

    /// <summary>Every frame received (and, unless <see cref="FrameLogOptions.RecordSent"/> is off, sent), in order,
    /// plus the validation findings (<see cref="FrameLog.Findings"/>).</summary>
    public FrameLog Log { get; }

    /// <summary>The findings so far (shorthand for <c>Log.Findings()</c>).</summary>
    public IReadOnlyList<ProtocolFinding> Findings => Log.Findings();

    /// <summary>Completes when the connection has ended: its loops stopped, its transport completed, its channels
    /// released (unacked deliveries requeued, exclusive queues deleted). Never faults.</summary>
    public Task Completion => _completion.Task;

    /// <summary>Completes with true once connection.open-ok was sent; with false if the connection ended
    /// before.</summary>
    public Task<bool> Opened => _opened.Task;

    /// <summary>How the connection ended; null while it runs (and, briefly, while the broker's close is in flight
    /// it already holds the broker's reason).</summary>
    public ConnectionCloseInfo? CloseInfo => _closeInfo;

    /// <summary>The frame_max in force: 4096 until tune-ok (as in RabbitMQ), then the client's tune-ok value (0 =
    /// unlimited).</summary>
    public int FrameMax { get; private set; }

    /// <summary>The channel_max from tune-ok (0 until then, and 0 = no limit).</summary>
    public ushort ChannelMax { get; private set; }

    /// <summary>The heartbeat interval from tune-ok, in seconds (0 = none).</summary>
    public ushort HeartbeatSeconds { get; private set; }

    /// <summary>Whether tune-ok was received.</summary>
    public bool IsTuned { get; private set; }

    /// <summary>The authenticated user, once start-ok was accepted.</summary>
    public string? UserName { get; private set; }

    /// <summary>The virtual host, once connection.open was accepted.</summary>
    public string? VirtualHostName { get; private set; }

    /// <summary>The client properties from connection.start-ok.</summary>
    public FieldTable? ClientProperties { get; private set; }

    /// <summary>Every publish completed on this connection (method, header and whole body), in completion order,
    /// whether or not it was routed. Empty when <see cref="FakeAmqpBrokerOptions.KeepPublished"/> is off.</summary>
    public IReadOnlyList<DeliveredMessage> Published
    {
        get
        {
            lock (_published)
                return [.. _published];
        }
    }

    internal bool IsClosing => _closing;

    /// <summary>Whether the client announced the consumer_cancel_notify capability: only then does a consumer whose
    /// queue is deleted get basic.cancel (as in RabbitMQ).</summary>
    internal bool ConsumerCancelNotify { get; private set; }

    /// <summary>Tells the client that the broker cancelled a consumer (its queue was deleted): basic.cancel with
    /// nowait=true on the consumer's channel, when the client announced consumer_cancel_notify and the channel is
    /// still usable. Called under the virtual host's lock, from any connection's loop.</summary>
    internal void NotifyConsumerCancelled(ChannelState channel, string consumerTag)
    {
        if (ConsumerCancelNotify && channel.IsUsable)
            SendMethod(channel.Number, new BasicCancel { ConsumerTag = consumerTag, NoWait = true });
    }

    internal VirtualHost? Host { get; private set; }

    /// <summary>Asks the connection to close: sends connection.close with <paramref name="replyCode"/> and
    /// <paramref name="replyText"/> (cut to 252 bytes and "..." when longer than a short string holds, as RabbitMQ
    /// does), waits up to <see cref="FakeAmqpBrokerOptions.CloseTimeout"/> for close-ok, then closes the transport.
    /// Completes with <see cref="Completion"/>. Does nothing more if the connection is already closing.</summary>
    public Task CloseAsync(
        ushort replyCode = ReplyCodes.ConnectionForced,
        string replyText = "CONNECTION_FORCED - broker forced connection closure"
    )
    {
        ArgumentNullException.ThrowIfNull(replyText);
        replyText = ReplyText.Fit(replyText);
        if (BeginClose(new ConnectionCloseInfo(CloseInitiator.Broker, replyCode, replyText, 0, 0)))
            SendMethod(0, new ConnectionClose { ReplyCode = replyCode, ReplyText = replyText });
        return Completion;
    }

    /// <summary>Ends the connection at once, without connection.close: stops reading and writing and completes the
    /// transport (for TCP the socket closes). Completes with <see cref="Completion"/>.</summary>
    public Task AbortAsync()
    {
        SetCloseInfo(new ConnectionCloseInfo(CloseInitiator.Broker, 0, "aborted by the broker", 0, 0));
        Abort();
        return Completion;
    }

    /// <inheritdoc/>
    public override string ToString() => $"connection {Id}" + (CloseInfo is { } c ? $" (closed: {c})" : "");

    internal void Abort()
    {
        try
        {
            _abort.Cancel();
        }
        catch (ObjectDisposedException) { } // the connection ended and disposed its token source: nothing left to abort
    }

    /// <summary>Marks the connection as closing by the broker; false if it already was.</summary>
    private bool BeginClose(ConnectionCloseInfo info)
    {
        lock (_stateGate)
        {
            if (_closing || _completion.Task.IsCompleted)
                return false;
            _closing = true;
            _closeInfo ??= info;
            _closeTimer = new Timer(
                static s => ((BrokerConnection)s!).Abort(),
                this,
                _options.CloseTimeout,
                Timeout.InfiniteTimeSpan
            );
            return true;
        }
    }

    private void SetCloseInfo(ConnectionCloseInfo info)
    {
        lock (_stateGate)
            _closeInfo ??= info;
    }

    /// <summary>Runs the connection to its end. Never throws.</summary>
    internal async Task RunAsync()
    {
        Task writer = Task.CompletedTask;
        Task heartbeat = Task.CompletedTask;
        using var handshakeTimer =
            _options.HandshakeTimeout == Timeout.InfiniteTimeSpan
                ? null
                : new Timer(
                    static s => ((BrokerConnection)s!).OnHandshakeTimeout(),
                    this,
                    _options.HandshakeTimeout,
                    Timeout.InfiniteTimeSpan
                );
        try
        {
            writer = Task.Run(WriterLoopAsync);
            heartbeat = await ReceiveLoopAsync().ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (_abort.IsCancellationRequested)
        {
            SetCloseInfo(
                new ConnectionCloseInfo(CloseInitiator.Broker, 0, "close timed out or the connection was aborted", 0, 0)
            );
        }
        catch (Exception ex) when (IsTransportFailure(ex))
        {
            BrokerLog.TransportFailed(_logger, Id, ex.Message);
            ReportTruncatedFrame("the transport failed (" + ex.Message + ")");
            SetCloseInfo(new ConnectionCloseInfo(CloseInitiator.Transport, 0, "transport failed: " + ex.Message, 0, 0));
        }
        catch (Exception ex)
        {
            // The broker's own bug: say so in the log and to the client (541, as RabbitMQ does for an internal
            // error), then end the connection; the other connections carry on.
            BrokerLog.InternalError(_logger, Id, "serving", ex);
            Log.AddFinding(
                new ProtocolFinding(
                    -1,
                    ReplyCodes.InternalError,
                    "internal-error",
                    $"The fake broker failed while serving this connection: {ex}",
                    ClosedConnection: true
                )
            );
            string text = ReplyText.Fit("INTERNAL_ERROR - " + ex.Message);
            if (BeginClose(new ConnectionCloseInfo(CloseInitiator.Broker, ReplyCodes.InternalError, text, 0, 0)))
                SendMethod(0, new ConnectionClose { ReplyCode = ReplyCodes.InternalError, ReplyText = text });
        }
        finally
        {
            await EndAsync(writer, heartbeat).ConfigureAwait(false);
        }
    }

    /// <summary>RabbitMQ's handshake_timeout: a client that has not got connection.open-ok in time loses the
    /// socket.</summary>
    private void OnHandshakeTimeout()
    {
        if (_opened.Task.IsCompleted || _completion.Task.IsCompleted)
            return;
        Log.AddFinding(
            new ProtocolFinding(
                -1,
                0,
                "handshake-timeout",
                $"The client did not complete the handshake (up to connection.open-ok) within {_options.HandshakeTimeout.TotalSeconds:0.###} s; "
                    + "the socket was closed without connection.close, as RabbitMQ does after its handshake_timeout.",
                ClosedConnection: true
            )
        );
        SetCloseInfo(new ConnectionCloseInfo(CloseInitiator.Broker, 0, "handshake_timeout", 0, 0));
        BrokerLog.HandshakeTimedOut(_logger, Id, _options.HandshakeTimeout);
        Abort();
    }

    private static bool IsTransportFailure(Exception ex) =>
        ex is IOException or System.Net.Sockets.SocketException or ObjectDisposedException or InvalidOperationException
        || ex.InnerException is System.Net.Sockets.SocketException;

    private async Task EndAsync(Task writer, Task heartbeat)
    {
        bool writerStalled = true;
        try
        {
            _closing = true;
            SetCloseInfo(
                new ConnectionCloseInfo(
                    CloseInitiator.Transport,
                    0,
                    "the client closed the transport without connection.close",
                    0,
                    0
                )
            );
            ReleaseChannels();
            _outbound.Writer.TryComplete();
            // Let queued frames (close-ok, connection.close) go out, but never wait forever for a stalled peer.
            writerStalled = !await CompletesWithin(writer, _options.CloseTimeout + TimeSpan.FromSeconds(1))
                .ConfigureAwait(false);
            Abort();
            await CompletesWithin(writer, TimeSpan.FromSeconds(5)).ConfigureAwait(false);
            await CompletesWithin(heartbeat, TimeSpan.FromSeconds(5)).ConfigureAwait(false);
        }
        catch (Exception ex)
        {
            BrokerLog.InternalError(_logger, Id, "cleaning up", ex);
            Log.AddFinding(
                new ProtocolFinding(
                    -1,
                    ReplyCodes.InternalError,
                    "internal-error",
                    $"Cleanup failed: {ex}",
                    ClosedConnection: true
                )
            );
        }
        finally
        {
            // A stalled peer may leave bytes buffered in the output: close the socket first, so completing the
            // output cannot block on a flush that never ends.
            if (writerStalled)
                EndTransport();
            try
            {
                await _transport.Output.CompleteAsync().ConfigureAwait(false);
            }
            catch (Exception ex)
            {
                // the peer may be gone: the connection ends either way
                BrokerLog.ExceptionSetAside(_logger, $"connection {Id}: completing the transport's output", ex);
            }
            try
            {
                await _transport.Input.CompleteAsync().ConfigureAwait(false);
            }
            catch (Exception ex)
            {
                // the peer may be gone: the connection ends either way
                BrokerLog.ExceptionSetAside(_logger, $"connection {Id}: completing the transport's input", ex);
            }
            EndTransport();
            lock (_stateGate)
                _closeTimer?.Dispose();
            try
            {
                _broker.OnConnectionEnded(this);
            }
            catch (Exception ex)
            {
                Log.AddFinding(
                    new ProtocolFinding(
                        -1,
                        ReplyCodes.InternalError,
                        "internal-error",
                        $"Retention failed: {ex}",
                        ClosedConnection: true
                    )
                );
            }
            if (_logger.IsEnabled(LogLevel.Information))
                BrokerLog.ConnectionClosed(
                    _logger,
                    Id,
                    _closeInfo?.ToString() ?? "ended",
                    Log.NextSequence,
                    Log.Findings().Count
                );
            _opened.TrySetResult(false);
            _completion.TrySetResult();
        }
    }

    private void EndTransport()
    {
        try
        {
            _onEnded?.Invoke();
        }
        catch (Exception ex)
        {
            // closing a socket cannot fail the connection's end
            BrokerLog.ExceptionSetAside(_logger, $"connection {Id}: ending the transport", ex);
        }
    }

    private static async Task<bool> CompletesWithin(Task task, TimeSpan timeout)
    {
        try
        {
            await task.WaitAsync(timeout).ConfigureAwait(false);
            return true;
        }
        catch (TimeoutException)
        {
            return false;
        }
        catch (Exception)
        {
            return true; // ended, even if badly: the loops record their own failures
        }
    }

    /// <summary>Releases every channel's consumers and unacked deliveries, and deletes exclusive queues.</summary>
    private void ReleaseChannels()
    {
        var host = Host;
        if (host is null)
            return;
        lock (host.Gate)
        {
            var touched = new HashSet<BrokerQueue>();
            foreach (var channel in _channels.Values)
            {
                channel.Closed = true;
                touched.UnionWith(channel.ReleaseAll());
            }
            foreach (var queue in touched)
            {
                host.MaybeAutoDelete(queue);
                if (!queue.Deleted)
                    queue.Dispatch();
            }
        }
        host.RemoveExclusiveQueues(Id);
        _bodySlab.Retire(); // the receive loop is done: the last slab goes back once its queues let go
    }

    /// <summary>Keeps a message of <paramref name="parts"/> in <see cref="Published"/> when
    /// <see cref="FakeAmqpBrokerOptions.KeepPublished"/> says so; returns the instance kept, or null.</summary>
    private DeliveredMessage? AddPublished(in MessageParts parts)
    {
        if (!_options.KeepPublished)
            return null;
        var message = new DeliveredMessage(parts);
        lock (_published)
            _published.Add(message);
        return message;
    }
}
