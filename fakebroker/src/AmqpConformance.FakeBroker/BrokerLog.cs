using Microsoft.Extensions.Logging;

namespace AmqpConformance.FakeBroker;

/// <summary>
/// Every log event of the broker, source-generated (<see cref="LoggerMessageAttribute"/>), in the manner of Kestrel's
/// <c>SocketsLog</c>: one static method per event with a fixed id, level and message template, so a disabled level
/// costs one <see cref="ILogger.IsEnabled"/> check and nothing is formatted. Category <see cref="Category"/>.
/// </summary>
/// <remarks>Levels: a connection's life (accepted, closed) at Information, once each per connection; what the broker
/// refused (a violation that closed a channel or the connection, a handshake timeout, missed heartbeats) at Warning;
/// its own failures at Error. Anything that may happen once per frame (a finding reported without closing) is Debug:
/// nothing is logged per frame at Information.</remarks>
internal static partial class BrokerLog
{
    /// <summary>The logger category of the broker and its connections.</summary>
    public const string Category = "AmqpConformance.FakeBroker";

    [LoggerMessage(1, LogLevel.Debug, "listening on {Endpoint}", EventName = "Listening")]
    public static partial void Listening(ILogger logger, System.Net.EndPoint endpoint);

    [LoggerMessage(
        2,
        LogLevel.Information,
        "connection {ConnectionId}: accepted from {RemoteEndPoint}",
        EventName = "ConnectionAccepted"
    )]
    public static partial void ConnectionAccepted(ILogger logger, long connectionId, string remoteEndPoint);

    [LoggerMessage(
        3,
        LogLevel.Information,
        "connection {ConnectionId}: closed ({CloseReason}); {FrameCount} frame(s), {FindingCount} finding(s)",
        EventName = "ConnectionClosed"
    )]
    public static partial void ConnectionClosed(
        ILogger logger,
        long connectionId,
        string closeReason,
        long frameCount,
        int findingCount
    );

    [LoggerMessage(
        4,
        LogLevel.Warning,
        "connection {ConnectionId}: {ReplyCode} {Rule} at frame #{Sequence}, {Action}: {Detail}",
        EventName = "ProtocolViolation"
    )]
    public static partial void ProtocolViolation(
        ILogger logger,
        long connectionId,
        int replyCode,
        string rule,
        long sequence,
        string action,
        string detail
    );

    [LoggerMessage(
        5,
        LogLevel.Debug,
        "connection {ConnectionId}: reported {ReplyCode} {Rule} at frame #{Sequence}: {Detail}",
        EventName = "FindingReported"
    )]
    public static partial void FindingReported(
        ILogger logger,
        long connectionId,
        int replyCode,
        string rule,
        long sequence,
        string detail
    );

    [LoggerMessage(
        6,
        LogLevel.Warning,
        "connection {ConnectionId}: bad protocol header {Header}; answered with AMQP 0-9-1's and closed the socket",
        EventName = "BadProtocolHeader"
    )]
    public static partial void BadProtocolHeader(ILogger logger, long connectionId, string header);

    [LoggerMessage(
        7,
        LogLevel.Warning,
        "connection {ConnectionId}: handshake not completed within {HandshakeTimeout}; socket closed",
        EventName = "HandshakeTimedOut"
    )]
    public static partial void HandshakeTimedOut(ILogger logger, long connectionId, TimeSpan handshakeTimeout);

    [LoggerMessage(
        8,
        LogLevel.Warning,
        "connection {ConnectionId}: nothing received for {SilentSeconds:0.0} s (heartbeat {HeartbeatSeconds} s); socket closed",
        EventName = "MissedHeartbeats"
    )]
    public static partial void MissedHeartbeats(
        ILogger logger,
        long connectionId,
        double silentSeconds,
        int heartbeatSeconds
    );

    [LoggerMessage(
        9,
        LogLevel.Debug,
        "connection {ConnectionId}: transport failed: {Reason}",
        EventName = "TransportFailed"
    )]
    public static partial void TransportFailed(ILogger logger, long connectionId, string reason);

    [LoggerMessage(
        10,
        LogLevel.Error,
        "connection {ConnectionId}: the broker failed while serving it ({Where})",
        EventName = "InternalError"
    )]
    public static partial void InternalError(ILogger logger, long connectionId, string where, Exception exception);

    [LoggerMessage(11, LogLevel.Error, "accepting a connection failed", EventName = "AcceptFailed")]
    public static partial void AcceptFailed(ILogger logger, Exception exception);

    [LoggerMessage(
        12,
        LogLevel.Warning,
        "connection {ConnectionId}: a ConnectionAccepted handler threw; the broker serves the connection anyway",
        EventName = "AcceptedHandlerFailed"
    )]
    public static partial void AcceptedHandlerFailed(ILogger logger, long connectionId, Exception exception);

    [LoggerMessage(13, LogLevel.Debug, "stopping: closing {OpenCount} connection(s)", EventName = "Stopping")]
    public static partial void Stopping(ILogger logger, int openCount);

    [LoggerMessage(
        14,
        LogLevel.Warning,
        "{Count} connection(s) did not end within {Timeout} of connection.close; aborted",
        EventName = "CloseAborted"
    )]
    public static partial void CloseAborted(ILogger logger, int count, TimeSpan timeout);

    /// <summary>An exception the broker caught and did not rethrow while tearing something down (completing a
    /// transport whose peer is gone, closing a socket): the repository's policy for exceptions set aside, in the
    /// broker's own log (it cannot reach the harness's <c>SwallowedExceptions</c>).</summary>
    [LoggerMessage(
        15,
        LogLevel.Debug,
        "{Where}: an exception was caught and set aside",
        EventName = "ExceptionSetAside"
    )]
    public static partial void ExceptionSetAside(ILogger logger, string where, Exception exception);
}
