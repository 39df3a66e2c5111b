using Microsoft.Extensions.Logging;

namespace AmqpConformance.Toxiproxy;

/// <summary>
/// Every log event of the embedded fault proxy, source-generated (<see cref="LoggerMessageAttribute"/>), in the manner
/// of Kestrel's <c>SocketsLog</c>: one static method per event with a fixed id, level and message template. Category
/// <see cref="Category"/>.
/// </summary>
/// <remarks>Levels: a connection forwarded and ended at Information, once each per connection; an upstream that cannot
/// be reached at Warning; a listener that fails at Error; listener, toxic and fault plan changes at Debug. Nothing per
/// chunk or per byte.</remarks>
internal static partial class ProxyLog
{
    /// <summary>The logger category of the proxies and their connections.</summary>
    public const string Category = "AmqpConformance.Toxiproxy";

    [LoggerMessage(
        1,
        LogLevel.Debug,
        "proxy {ProxyName}: listening on {Listen} -> {Upstream}",
        EventName = "Listening"
    )]
    public static partial void Listening(ILogger logger, string proxyName, string listen, string upstream);

    [LoggerMessage(
        2,
        LogLevel.Debug,
        "proxy {ProxyName}: disabled, closing {OpenCount} connection(s)",
        EventName = "Disabled"
    )]
    public static partial void Disabled(ILogger logger, string proxyName, int openCount);

    [LoggerMessage(
        3,
        LogLevel.Information,
        "proxy {ProxyName}: connection {ConnectionId} from {ClientEndPoint} forwarded to {Upstream}",
        EventName = "ConnectionAccepted"
    )]
    public static partial void ConnectionAccepted(
        ILogger logger,
        string proxyName,
        long connectionId,
        string clientEndPoint,
        string upstream
    );

    [LoggerMessage(
        4,
        LogLevel.Information,
        "proxy {ProxyName}: connection {ConnectionId} closed ({Termination})",
        EventName = "ConnectionClosed"
    )]
    public static partial void ConnectionClosed(
        ILogger logger,
        string proxyName,
        long connectionId,
        string termination
    );

    [LoggerMessage(
        5,
        LogLevel.Warning,
        "proxy {ProxyName}: upstream {Upstream} unreachable for a connection from {ClientEndPoint} ({Reason}); closed it",
        EventName = "UpstreamUnreachable"
    )]
    public static partial void UpstreamUnreachable(
        ILogger logger,
        string proxyName,
        string upstream,
        string clientEndPoint,
        string reason
    );

    [LoggerMessage(
        6,
        LogLevel.Error,
        "proxy {ProxyName}: accepting failed; the listener on {Listen} stopped",
        EventName = "AcceptFailed"
    )]
    public static partial void AcceptFailed(ILogger logger, string proxyName, string listen, Exception exception);

    [LoggerMessage(
        7,
        LogLevel.Debug,
        "proxy {ProxyName}: toxic {ToxicName} ({ToxicType}, {Stream}, toxicity {Toxicity}) added",
        EventName = "ToxicAdded"
    )]
    public static partial void ToxicAdded(
        ILogger logger,
        string proxyName,
        string toxicName,
        string toxicType,
        string stream,
        float toxicity
    );

    [LoggerMessage(8, LogLevel.Debug, "proxy {ProxyName}: toxic {ToxicName} removed", EventName = "ToxicRemoved")]
    public static partial void ToxicRemoved(ILogger logger, string proxyName, string toxicName);

    [LoggerMessage(
        9,
        LogLevel.Debug,
        "proxy {ProxyName}: fault plan (seed {Seed}, {FaultCount} fault(s)) in force for new connections",
        EventName = "PlanApplied"
    )]
    public static partial void PlanApplied(ILogger logger, string proxyName, int seed, int faultCount);
}
