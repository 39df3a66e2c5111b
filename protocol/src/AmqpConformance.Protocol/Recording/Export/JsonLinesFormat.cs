using System.Globalization;
using AmqpConformance.Protocol;

namespace AmqpConformance.Protocol.Recording.Export;

/// <summary>The names and value spellings of the JSON Lines frame-log format, shared by <see cref="JsonLinesExporter"/>
/// and <see cref="JsonLinesReader"/>. The README's schema table documents them.</summary>
internal static class JsonLinesFormat
{
    public const string FormatName = "amqp-conformance/frame-log";

    /// <summary>2 since body digests are XXH3 (version 1's were XXH64: same field, other function).</summary>
    public const int Version = 2;

    public const string Kind = "kind";
    public const string KindLog = "log";
    public const string KindFrame = "frame";
    public const string KindFinding = "finding";
    public const string KindEnd = "end";

    public const string Format = "format";
    public const string FormatVersion = "version";
    public const string ConnectionId = "connectionId";
    public const string StartedAt = "startedAt";
    public const string Options = "options";
    public const string CaptureBodies = "captureBodies";
    public const string RecordSent = "recordSent";

    public const string Sequence = "sequence";
    public const string Direction = "direction";
    public const string WireOffset = "wireOffset";
    public const string Timestamp = "timestamp";
    public const string Type = "type";
    public const string Channel = "channel";
    public const string Size = "size";
    public const string WireLength = "wireLength";
    public const string ClassId = "classId";
    public const string MethodId = "methodId";
    public const string MethodName = "methodName";
    public const string DeclaredBodySize = "declaredBodySize";
    public const string PayloadDigest = "payloadDigest";
    public const string Payload = "payload";
    public const string FrameEndValid = "frameEndValid";

    public const string ReplyCode = "replyCode";
    public const string Rule = "rule";
    public const string Message = "message";
    public const string ClosedConnection = "closedConnection";

    public const string Reason = "reason";
    public const string Frames = "frames";
    public const string Findings = "findings";

    public static string DirectionName(FrameDirection direction) =>
        direction switch
        {
            FrameDirection.Received => "received",
            FrameDirection.Sent => "sent",
            _ => throw new ArgumentOutOfRangeException(nameof(direction), direction, "Unknown frame direction."),
        };

    public static FrameDirection ParseDirection(string value) =>
        value switch
        {
            "received" => FrameDirection.Received,
            "sent" => FrameDirection.Sent,
            _ => throw new FormatException($"direction \"{value}\" is neither \"received\" nor \"sent\"."),
        };

    /// <summary>"method", "header", "body", "heartbeat"; an undefined octet as its decimal value ("65").</summary>
    public static string TypeName(FrameType type) =>
        type switch
        {
            FrameType.Method => "method",
            FrameType.Header => "header",
            FrameType.Body => "body",
            FrameType.Heartbeat => "heartbeat",
            _ => ((byte)type).ToString(CultureInfo.InvariantCulture),
        };

    public static FrameType ParseType(string value) =>
        value switch
        {
            "method" => FrameType.Method,
            "header" => FrameType.Header,
            "body" => FrameType.Body,
            "heartbeat" => FrameType.Heartbeat,
            _ when byte.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out byte octet) =>
                (FrameType)octet,
            _ => throw new FormatException(
                $"type \"{value}\" is not method, header, body, heartbeat or a decimal octet."
            ),
        };

    /// <summary>Seconds with tick (100 ns) precision, so the value reads back exactly.</summary>
    public static decimal Seconds(TimeSpan time) => time.Ticks / (decimal)TimeSpan.TicksPerSecond;

    public static TimeSpan FromSeconds(decimal seconds) =>
        TimeSpan.FromTicks(checked((long)(seconds * TimeSpan.TicksPerSecond)));

    public static string Digest(ulong digest) => digest.ToString("x16", CultureInfo.InvariantCulture);

    public static ulong ParseDigest(string value) =>
        value.Length == 16
        && ulong.TryParse(value, NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out ulong digest)
            ? digest
            : throw new FormatException($"payloadDigest \"{value}\" is not 16 hex digits.");
}
