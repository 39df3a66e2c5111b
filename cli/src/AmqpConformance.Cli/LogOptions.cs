using System.CommandLine;
using Microsoft.Extensions.Logging;

namespace AmqpConformance.Cli;

/// <summary>The <c>--log-level</c> and <c>--log-format</c> options of the <c>broker</c> and <c>proxy</c> commands, and
/// the logger factory they make: the level filter over a <see cref="BoundedConsoleLoggerProvider"/>.</summary>
internal static class LogOptions
{
    /// <summary>The levels <c>--log-level</c> accepts, lowest first.</summary>
    public static readonly string[] Levels = ["trace", "debug", "information", "warning", "error", "critical", "none"];

    /// <summary>How long a stopping command lets the sink drain before it gives up on a stalled output.
    /// System.CommandLine gives an action 2 s after SIGINT/SIGTERM, and the broker takes up to 0.5 s to close its
    /// connections.</summary>
    public static readonly TimeSpan DrainTimeout = TimeSpan.FromMilliseconds(500);

    /// <summary>How long the one line about lost lines may take on standard error: on Unix .NET writes standard error
    /// under the same lock as standard output, so a write blocked on a stalled standard output blocks it too.</summary>
    public static readonly TimeSpan NoticeTimeout = TimeSpan.FromMilliseconds(250);

    /// <summary>A new <c>--log-level</c> option (default information; other values are refused with exit code
    /// 2).</summary>
    public static Option<string> LevelOption()
    {
        var option = new Option<string>("--log-level")
        {
            Description =
                "Least severe log entries printed: trace, debug, information, warning, error, critical or none",
            DefaultValueFactory = _ => "information",
        };
        option.AcceptOnlyFromAmong(Levels);
        return option;
    }

    /// <summary>A new <c>--log-format</c> option (default text; other values are refused with exit code 2).</summary>
    public static Option<string> FormatOption()
    {
        var option = new Option<string>("--log-format")
        {
            Description =
                "text: a line per entry for people; json: one JSON object per line (timestamp, level, category, eventId, eventName, message, state)",
            DefaultValueFactory = _ => "text",
        };
        option.AcceptOnlyFromAmong("text", "json");
        return option;
    }

    /// <summary>The level <paramref name="name"/> (one of <see cref="Levels"/>) names.</summary>
    public static LogLevel ParseLevel(string name) =>
        name switch
        {
            "trace" => LogLevel.Trace,
            "debug" => LogLevel.Debug,
            "information" => LogLevel.Information,
            "warning" => LogLevel.Warning,
            "error" => LogLevel.Error,
            "critical" => LogLevel.Critical,
            "none" => LogLevel.None,
            _ => throw new ArgumentOutOfRangeException(nameof(name), name, "not a --log-level"),
        };

    /// <summary>The format <paramref name="name"/> (text or json) names.</summary>
    public static LogFormat ParseFormat(string name) => name == "json" ? LogFormat.Json : LogFormat.Text;

    /// <summary>A logger factory that passes entries of <paramref name="minimum"/> and above to
    /// <paramref name="sink"/>. The caller disposes it, then completes the sink.</summary>
    public static ILoggerFactory CreateFactory(BoundedConsoleLoggerProvider sink, LogLevel minimum) =>
        LoggerFactory.Create(builder => builder.SetMinimumLevel(minimum).AddProvider(sink));

    /// <summary>Drains <paramref name="sink"/> for at most <see cref="DrainTimeout"/>; when lines were lost, says how
    /// many in one line on <paramref name="error"/> (given up after <see cref="NoticeTimeout"/>, should that be stalled
    /// as well).</summary>
    public static async Task CompleteAsync(BoundedConsoleLoggerProvider sink, string command, TextWriter error)
    {
        long lost = await sink.CompleteAsync(DrainTimeout);
        if (lost > 0)
            BoundedConsoleLoggerProvider.TryWriteLineWithin(
                error,
                $"{command}: {lost} log line(s) not written: the output did not keep up",
                NoticeTimeout
            );
    }
}
