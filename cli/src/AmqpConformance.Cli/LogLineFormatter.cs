using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using Microsoft.Extensions.Logging;

namespace AmqpConformance.Cli;

/// <summary>How the <c>broker</c> and <c>proxy</c> commands print their log (<c>--log-format</c>).</summary>
internal enum LogFormat
{
    /// <summary>One line per entry for people: local time, level, message (an exception follows on its own
    /// lines).</summary>
    Text,

    /// <summary>One JSON object per line: timestamp, level, category, eventId, eventName, message, state,
    /// exception.</summary>
    Json,
}

/// <summary>Turns one log entry into one line of <see cref="LogFormat"/>. Thread-safe: it keeps no state between
/// entries.</summary>
internal sealed class LogLineFormatter(LogFormat format, TimeProvider time)
{
    private const string OriginalFormat = "{OriginalFormat}";

    /// <summary>Valid JSON that keeps '+', '&lt;' and non-ASCII text readable: a log line is never embedded in
    /// HTML.</summary>
    private static readonly JsonWriterOptions JsonOptions = new()
    {
        Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
    };

    /// <summary>The entry as one line (text: an exception adds lines after it).</summary>
    public string Format(
        LogLevel level,
        string category,
        EventId eventId,
        string message,
        IReadOnlyList<KeyValuePair<string, object?>>? state,
        Exception? exception
    ) =>
        format == LogFormat.Json
            ? Json(level, category, eventId, message, state, exception)
            : Text(level, message, exception);

    private string Text(LogLevel level, string message, Exception? exception)
    {
        string line = string.Create(
            CultureInfo.InvariantCulture,
            $"{time.GetLocalNow():HH:mm:ss.fff} {ShortName(level)} {message}"
        );
        return exception is null ? line : line + Environment.NewLine + exception;
    }

    private string Json(
        LogLevel level,
        string category,
        EventId eventId,
        string message,
        IReadOnlyList<KeyValuePair<string, object?>>? state,
        Exception? exception
    )
    {
        var buffer = new ArrayBufferWriter<byte>(256);
        using (var json = new Utf8JsonWriter(buffer, JsonOptions))
        {
            json.WriteStartObject();
            json.WriteString("timestamp", time.GetUtcNow());
            json.WriteString("level", level.ToString());
            json.WriteString("category", category);
            json.WriteNumber("eventId", eventId.Id);
            if (eventId.Name is { } name)
                json.WriteString("eventName", name);
            json.WriteString("message", message);
            json.WriteStartObject("state"); // the structured values the message was made of; {} when there are none
            foreach (KeyValuePair<string, object?> pair in state ?? [])
            {
                if (pair.Key == OriginalFormat)
                    continue;
                json.WritePropertyName(pair.Key);
                WriteValue(json, pair.Value);
            }
            json.WriteEndObject();
            if (exception is not null)
                json.WriteString("exception", exception.ToString());
            json.WriteEndObject();
        }
        return Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    private static void WriteValue(Utf8JsonWriter json, object? value)
    {
        switch (value)
        {
            case null:
                json.WriteNullValue();
                break;
            case bool b:
                json.WriteBooleanValue(b);
                break;
            case int or long or short or ushort or uint or byte or sbyte:
                json.WriteNumberValue(Convert.ToInt64(value, CultureInfo.InvariantCulture));
                break;
            case ulong u:
                json.WriteNumberValue(u);
                break;
            case double d when double.IsFinite(d):
                json.WriteNumberValue(d);
                break;
            case float f when float.IsFinite(f):
                json.WriteNumberValue(f);
                break;
            case decimal m:
                json.WriteNumberValue(m);
                break;
            case IFormattable formattable:
                json.WriteStringValue(formattable.ToString(null, CultureInfo.InvariantCulture));
                break;
            default:
                json.WriteStringValue(value.ToString());
                break;
        }
    }

    /// <summary>The level as Microsoft.Extensions.Logging.Console spells it: four letters.</summary>
    private static string ShortName(LogLevel level) =>
        level switch
        {
            LogLevel.Trace => "trce",
            LogLevel.Debug => "dbug",
            LogLevel.Information => "info",
            LogLevel.Warning => "warn",
            LogLevel.Error => "fail",
            LogLevel.Critical => "crit",
            _ => "none",
        };
}
