using System.Text;
using System.Text.Json;
using AmqpConformance.Protocol;
using F = AmqpConformance.Protocol.Recording.Export.JsonLinesFormat;

namespace AmqpConformance.Protocol.Recording.Export;

/// <summary>
/// Loads a JSON Lines frame log written by <see cref="JsonLinesExporter"/> back into one
/// <see cref="FrameLogSnapshot"/> per connection, in the order their <c>log</c> lines appear.
/// </summary>
/// <remarks>
/// Strict: a line that is not valid JSON, an unknown <c>kind</c> or format version, a frame before its connection's
/// <c>log</c> line, or an <c>end</c> line whose counts disagree with the lines read, throws
/// <see cref="InvalidDataException"/> naming the line number. Blank lines are skipped. A connection without an
/// <c>end</c> line (a live recording that was cut short) loads with <see cref="FrameLogSnapshot.Ended"/> false.
/// </remarks>
public static class JsonLinesReader
{
    /// <summary>Reads every connection in <paramref name="path"/>.</summary>
    public static IReadOnlyList<FrameLogSnapshot> ReadFile(string path)
    {
        using var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 64 * 1024);
        return Read(file);
    }

    /// <summary>Reads every connection in <paramref name="input"/> (read to its end; left open).</summary>
    public static IReadOnlyList<FrameLogSnapshot> Read(Stream input)
    {
        ArgumentNullException.ThrowIfNull(input);
        using var reader = new StreamReader(
            input,
            Encoding.UTF8,
            detectEncodingFromByteOrderMarks: false,
            bufferSize: 64 * 1024,
            leaveOpen: true
        );
        return Read(reader);
    }

    /// <summary>Reads every connection from <paramref name="reader"/> to its end.</summary>
    public static IReadOnlyList<FrameLogSnapshot> Read(TextReader reader)
    {
        ArgumentNullException.ThrowIfNull(reader);
        var order = new List<long>();
        var builders = new Dictionary<long, Builder>();
        int lineNumber = 0;
        while (reader.ReadLine() is { } line)
        {
            lineNumber++;
            if (string.IsNullOrWhiteSpace(line))
                continue;
            try
            {
                using JsonDocument document = JsonDocument.Parse(line);
                JsonElement root = document.RootElement;
                if (root.ValueKind != JsonValueKind.Object)
                    throw new FormatException("the line is not a JSON object.");
                string kind = RequiredString(root, F.Kind);
                long connectionId = Prop(root, F.ConnectionId).GetInt64();
                if (kind == F.KindLog)
                {
                    if (builders.ContainsKey(connectionId))
                        throw new FormatException($"a second log line for connection {connectionId}.");
                    builders[connectionId] = ReadLogLine(root, connectionId);
                    order.Add(connectionId);
                    continue;
                }
                if (!builders.TryGetValue(connectionId, out Builder? builder))
                    throw new FormatException($"a {kind} line for connection {connectionId} before its log line.");
                if (builder.Ended)
                    throw new FormatException($"a {kind} line for connection {connectionId} after its end line.");
                switch (kind)
                {
                    case F.KindFrame:
                        builder.Frames.Add(ReadFrame(root));
                        break;
                    case F.KindFinding:
                        builder.Findings.Add(ReadFinding(root));
                        break;
                    case F.KindEnd:
                        ReadEnd(root, builder);
                        break;
                    default:
                        throw new FormatException($"unknown kind \"{kind}\" (expected log, frame, finding or end).");
                }
            }
            catch (Exception e)
                when (e is JsonException or FormatException or InvalidOperationException or OverflowException)
            {
                throw new InvalidDataException($"JSON Lines frame log, line {lineNumber}: {e.Message}", e);
            }
        }
        return [.. order.Select(id => builders[id].Build())];
    }

    private static Builder ReadLogLine(JsonElement root, long connectionId)
    {
        string format = RequiredString(root, F.Format);
        if (format != F.FormatName)
            throw new FormatException($"format \"{format}\" is not \"{F.FormatName}\".");
        int version = Prop(root, F.FormatVersion).GetInt32();
        if (version == 1)
            throw new FormatException(
                $"format version 1 is not supported (this reader reads {F.Version}): version 1 logs hold XXH64 body digests, which no longer match the frame log's XXH3 digests; record the log again with this version."
            );
        if (version != F.Version)
            throw new FormatException($"format version {version} is not supported (this reader reads {F.Version}).");
        JsonElement options = Prop(root, F.Options);
        return new Builder
        {
            ConnectionId = connectionId,
            StartedAt = Prop(root, F.StartedAt).GetDateTimeOffset(),
            Options = new FrameLogOptions
            {
                CaptureBodies = Prop(options, F.CaptureBodies).GetBoolean(),
                RecordSent = Prop(options, F.RecordSent).GetBoolean(),
            },
        };
    }

    private static FrameRecord ReadFrame(JsonElement root)
    {
        FrameType type = F.ParseType(RequiredString(root, F.Type));
        int size = Prop(root, F.Size).GetInt32();
        // The cast matters: a null byte[] would convert to empty memory, not to "no payload".
        ReadOnlyMemory<byte>? payload = root.TryGetProperty(F.Payload, out JsonElement p)
            ? p.GetBytesFromBase64()
            : (ReadOnlyMemory<byte>?)null;
        return new FrameRecord
        {
            Sequence = Prop(root, F.Sequence).GetInt64(),
            Direction = F.ParseDirection(RequiredString(root, F.Direction)),
            WireOffset = Prop(root, F.WireOffset).GetInt64(),
            Timestamp = F.FromSeconds(Prop(root, F.Timestamp).GetDecimal()),
            Type = type,
            Channel = Prop(root, F.Channel).GetUInt16(),
            Size = size,
            ClassId = root.TryGetProperty(F.ClassId, out JsonElement c) ? c.GetUInt16() : (ushort)0,
            MethodId = root.TryGetProperty(F.MethodId, out JsonElement m) ? m.GetUInt16() : (ushort)0,
            MethodName = root.TryGetProperty(F.MethodName, out JsonElement n) ? n.GetString() : null,
            DeclaredBodySize = root.TryGetProperty(F.DeclaredBodySize, out JsonElement d) ? d.GetInt64() : null,
            PayloadDigest = root.TryGetProperty(F.PayloadDigest, out JsonElement g)
                ? F.ParseDigest(g.GetString() ?? "")
                : null,
            Payload = payload,
            FrameEndValid = Prop(root, F.FrameEndValid).GetBoolean(),
        };
    }

    private static ProtocolFinding ReadFinding(JsonElement root) =>
        new(
            Prop(root, F.Sequence).GetInt64(),
            Prop(root, F.ReplyCode).GetInt32(),
            RequiredString(root, F.Rule),
            RequiredString(root, F.Message),
            Prop(root, F.ClosedConnection).GetBoolean()
        );

    private static void ReadEnd(JsonElement root, Builder builder)
    {
        int frames = Prop(root, F.Frames).GetInt32();
        int findings = Prop(root, F.Findings).GetInt32();
        if (frames != builder.Frames.Count || findings != builder.Findings.Count)
            throw new FormatException(
                $"the end line of connection {builder.ConnectionId} counts {frames} frames and {findings} findings, "
                    + $"but the file holds {builder.Frames.Count} and {builder.Findings.Count}."
            );
        builder.Ended = true;
        builder.EndReason = root.TryGetProperty(F.Reason, out JsonElement r) ? r.GetString() : null;
    }

    private static JsonElement Prop(JsonElement element, string name) =>
        element.TryGetProperty(name, out JsonElement value) && value.ValueKind != JsonValueKind.Null
            ? value
            : throw new FormatException($"\"{name}\" is missing.");

    private static string RequiredString(JsonElement root, string name) =>
        Prop(root, name).GetString() ?? throw new FormatException($"\"{name}\" is null.");

    private sealed class Builder
    {
        public required long ConnectionId { get; init; }
        public required DateTimeOffset StartedAt { get; init; }
        public required FrameLogOptions Options { get; init; }
        public List<FrameRecord> Frames { get; } = [];
        public List<ProtocolFinding> Findings { get; } = [];
        public bool Ended { get; set; }
        public string? EndReason { get; set; }

        public FrameLogSnapshot Build() =>
            new()
            {
                ConnectionId = ConnectionId,
                StartedAt = StartedAt,
                Options = Options,
                Frames = Frames,
                Findings = Findings,
                EndReason = EndReason,
                Ended = Ended,
            };
    }
}
