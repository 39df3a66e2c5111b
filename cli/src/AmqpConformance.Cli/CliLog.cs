using Microsoft.Extensions.Logging;

namespace AmqpConformance.Cli;

/// <summary>The <c>broker</c> and <c>proxy</c> commands' own log events (the libraries log theirs: BrokerLog,
/// ProxyLog), all through the bounded sink so that none waits on the console. The start-up lines are logged through the
/// sink's own logger, whatever <c>--log-level</c> says: they carry the port a client needs.</summary>
internal static partial class CliLog
{
    /// <summary>The logger category of the commands' own events.</summary>
    public const string Category = "AmqpConformance.Cli";

    /// <summary>At most this many findings are listed in one <see cref="FindingsReported"/> entry.</summary>
    public const int MaxFindingsListed = 20;

    [LoggerMessage(1, LogLevel.Information, "listening on {Endpoint}", EventName = "BrokerListening")]
    public static partial void BrokerListening(ILogger logger, System.Net.EndPoint endpoint);

    [LoggerMessage(
        2,
        LogLevel.Information,
        "  frame_max {FrameMax}, heartbeat {HeartbeatSeconds} s, {Strictness} validation{Recording}; Ctrl+C stops",
        EventName = "BrokerSettings"
    )]
    public static partial void BrokerSettings(
        ILogger logger,
        int frameMax,
        int heartbeatSeconds,
        string strictness,
        string recording
    );

    [LoggerMessage(
        3,
        LogLevel.Warning,
        "connection {ConnectionId}: {FindingCount} finding(s) reported without closing:{Findings}",
        EventName = "FindingsReported"
    )]
    public static partial void FindingsReported(ILogger logger, long connectionId, int findingCount, string findings);

    [LoggerMessage(4, LogLevel.Information, "stopping", EventName = "BrokerStopping")]
    public static partial void BrokerStopping(ILogger logger);

    [LoggerMessage(5, LogLevel.Information, "pcap: {PcapPath}", EventName = "PcapWritten")]
    public static partial void PcapWritten(ILogger logger, string pcapPath);

    [LoggerMessage(
        6,
        LogLevel.Information,
        "stopped: {ConnectionCount} connection(s), {FrameCount} frame(s){Recording}",
        EventName = "BrokerStopped"
    )]
    public static partial void BrokerStopped(ILogger logger, long connectionCount, long frameCount, string recording);

    [LoggerMessage(
        10,
        LogLevel.Information,
        "proxy '{ProxyName}' listening on {Listen} -> {Upstream}",
        EventName = "ProxyListening"
    )]
    public static partial void ProxyListening(ILogger logger, string proxyName, string listen, string upstream);

    [LoggerMessage(11, LogLevel.Information, "Toxiproxy API on {ApiUrl}", EventName = "ApiListening")]
    public static partial void ApiListening(ILogger logger, Uri apiUrl);

    [LoggerMessage(12, LogLevel.Information, "plan: {Note}", EventName = "PlanNote")]
    public static partial void PlanNote(ILogger logger, string note);

    [LoggerMessage(13, LogLevel.Information, "Press Ctrl+C to stop.", EventName = "ProxyReady")]
    public static partial void ProxyReady(ILogger logger);

    [LoggerMessage(14, LogLevel.Information, "stopping proxy", EventName = "ProxyStopping")]
    public static partial void ProxyStopping(ILogger logger);
}
