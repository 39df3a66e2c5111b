using System.Text;
using System.Text.Json;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.Protocol.Recording.Export;

namespace AmqpConformance.Protocol.Tests.Recording;

public sealed class JsonLinesExporterTests
{
    private static List<JsonElement> Export(FrameLog log, string? reason = null)
    {
        using var stream = new MemoryStream();
        JsonLinesExporter.Write(stream, log, reason);
        string text = Encoding.UTF8.GetString(stream.ToArray());
        Assert.EndsWith("\n", text);
        return [.. text.TrimEnd('\n').Split('\n').Select(line => JsonDocument.Parse(line).RootElement.Clone())];
    }

    [Fact]
    public void First_line_is_the_log_header_with_connection_start_time_and_options()
    {
        var sample = new SampleLogs(connectionId: 42, captureBodies: true);
        sample.Heartbeat(FrameDirection.Sent);

        JsonElement header = Export(sample.Log)[0];

        Assert.Equal("log", header.GetProperty("kind").GetString());
        Assert.Equal(42, header.GetProperty("connectionId").GetInt64());
        Assert.Equal("amqp-conformance/frame-log", header.GetProperty("format").GetString());
        Assert.Equal(2, header.GetProperty("version").GetInt32());
        Assert.Equal(sample.Log.StartedAt, header.GetProperty("startedAt").GetDateTimeOffset());
        Assert.True(header.GetProperty("options").GetProperty("captureBodies").GetBoolean());
        Assert.True(header.GetProperty("options").GetProperty("recordSent").GetBoolean());
    }

    [Fact]
    public void Frame_lines_use_camel_case_lowercase_enums_hex_digests_and_base64_payloads_only_when_kept()
    {
        var sample = new SampleLogs(captureBodies: false);
        sample.Method(FrameDirection.Received, 1, new BasicPublish { RoutingKey = "q" });
        sample.Header(1, 3);
        sample.Body(1, [1, 2, 3]);
        sample.Malformed(0x41, 2, [9]);

        List<JsonElement> lines = Export(sample.Log);
        JsonElement method = lines[1],
            header = lines[2],
            body = lines[3],
            malformed = lines[4];

        Assert.Equal("frame", method.GetProperty("kind").GetString());
        Assert.Equal("received", method.GetProperty("direction").GetString());
        Assert.Equal("method", method.GetProperty("type").GetString());
        Assert.Equal(8, method.GetProperty("wireOffset").GetInt64());
        Assert.Equal(0.0012345m, method.GetProperty("timestamp").GetDecimal());
        Assert.Equal(60, method.GetProperty("classId").GetInt32());
        Assert.Equal(40, method.GetProperty("methodId").GetInt32());
        Assert.Equal("basic.publish", method.GetProperty("methodName").GetString());
        Assert.Equal(
            MethodCodec.ToPayload(new BasicPublish { RoutingKey = "q" }),
            method.GetProperty("payload").GetBytesFromBase64()
        );
        Assert.Equal(method.GetProperty("size").GetInt32() + 8, method.GetProperty("wireLength").GetInt32());
        Assert.False(method.TryGetProperty("payloadDigest", out _));

        Assert.Equal("header", header.GetProperty("type").GetString());
        Assert.Equal(3, header.GetProperty("declaredBodySize").GetInt64());

        Assert.Equal("body", body.GetProperty("type").GetString());
        Assert.False(body.TryGetProperty("payload", out _));
        Assert.False(body.TryGetProperty("classId", out _));
        string digest = body.GetProperty("payloadDigest").GetString()!;
        Assert.Matches("^[0-9a-f]{16}$", digest);
        Assert.Equal(SampleLogs.Digest([1, 2, 3]).ToString("x16"), digest);

        Assert.Equal("65", malformed.GetProperty("type").GetString());
        Assert.False(malformed.GetProperty("frameEndValid").GetBoolean());
    }

    [Fact]
    public void Findings_and_the_end_line_follow_the_frames()
    {
        var sample = new SampleLogs(connectionId: 3);
        sample.Heartbeat(FrameDirection.Received);
        sample.Log.AddFinding(
            new ProtocolFinding(0, 505, "unexpected-frame", "a frame \"quoted\"", ClosedConnection: true)
        );

        List<JsonElement> lines = Export(sample.Log, "closed by broker: 505");

        Assert.Equal(["log", "frame", "finding", "end"], lines.Select(l => l.GetProperty("kind").GetString()));
        Assert.All(lines, l => Assert.Equal(3, l.GetProperty("connectionId").GetInt64()));
        JsonElement finding = lines[2];
        Assert.Equal(0, finding.GetProperty("sequence").GetInt64());
        Assert.Equal(505, finding.GetProperty("replyCode").GetInt32());
        Assert.Equal("unexpected-frame", finding.GetProperty("rule").GetString());
        Assert.Equal("a frame \"quoted\"", finding.GetProperty("message").GetString());
        Assert.True(finding.GetProperty("closedConnection").GetBoolean());
        JsonElement end = lines[3];
        Assert.Equal("closed by broker: 505", end.GetProperty("reason").GetString());
        Assert.Equal(1, end.GetProperty("frames").GetInt32());
        Assert.Equal(1, end.GetProperty("findings").GetInt32());
    }

    [Fact]
    public void Concurrent_writers_never_split_a_line()
    {
        using var stream = new MemoryStream();
        var sample = new SampleLogs(captureBodies: true);
        FrameRecord big = sample.Body(1, SampleLogs.Pattern(64 * 1024, 1));
        using (var exporter = new JsonLinesExporter(stream, leaveOpen: true))
        {
            exporter.WriteLogStart(sample.Log);
            Parallel.For(0, 64, _ => exporter.WriteFrame(sample.Log.ConnectionId, big));
        }

        string[] lines = Encoding.UTF8.GetString(stream.ToArray()).TrimEnd('\n').Split('\n');
        Assert.Equal(65, lines.Length);
        Assert.All(lines.Skip(1), line =>
            Assert.Equal(
                64 * 1024,
                JsonDocument.Parse(line).RootElement.GetProperty("payload").GetBytesFromBase64().Length
            )
        );
    }
}
