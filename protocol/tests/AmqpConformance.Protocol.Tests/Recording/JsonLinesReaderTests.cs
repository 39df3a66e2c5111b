using System.Text;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.Protocol.Recording.Export;

namespace AmqpConformance.Protocol.Tests.Recording;

public sealed class JsonLinesReaderTests
{
    private static SampleLogs RichLog(long connectionId, bool captureBodies)
    {
        var sample = new SampleLogs(connectionId, captureBodies);
        sample.Method(FrameDirection.Sent, 0, new ConnectionStart());
        sample.Method(FrameDirection.Received, 0, new ConnectionStartOk { Response = "\0guest\0guest"u8.ToArray() });
        sample.Method(
            FrameDirection.Sent,
            0,
            new ConnectionTune
            {
                FrameMax = 4096,
                ChannelMax = 2047,
                Heartbeat = 60,
            }
        );
        sample.Method(
            FrameDirection.Received,
            0,
            new ConnectionTuneOk
            {
                FrameMax = 4096,
                ChannelMax = 2047,
                Heartbeat = 60,
            }
        );
        sample.Publish(1, [], 4096);
        sample.Publish(1, SampleLogs.Pattern(10_000, 1), 4096);
        sample.Heartbeat(FrameDirection.Sent);
        sample.Malformed(0x41, 3, [1, 2]);
        sample.Log.AddFinding(new ProtocolFinding(sample.Log.Count - 1, 501, "unknown-frame-type", "type 65", true));
        sample.Log.AddFinding(new ProtocolFinding(-1, 0, "strict-only", "reported only", false));
        return sample;
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Round_trip_keeps_every_field_of_every_frame_and_finding(bool captureBodies)
    {
        FrameLog log = RichLog(5, captureBodies).Log;
        using var stream = new MemoryStream();
        JsonLinesExporter.Write(stream, log, "closed: 501");
        stream.Position = 0;

        FrameLogSnapshot back = Assert.Single(JsonLinesReader.Read(stream));

        Assert.Equal(5, back.ConnectionId);
        Assert.Equal(log.StartedAt, back.StartedAt);
        Assert.Equal(log.Options, back.Options);
        FrameRecordAssert.Equal(log.Snapshot(), back.Frames);
        Assert.Equal(log.Findings(), back.Findings);
        Assert.True(back.Ended);
        Assert.Equal("closed: 501", back.EndReason);
        Assert.Equal(captureBodies, back.Frames.Where(f => f.Type == FrameType.Body).All(f => f.Payload is not null));
    }

    [Fact]
    public void Several_connections_come_back_in_the_order_of_their_log_lines()
    {
        using var stream = new MemoryStream();
        JsonLinesExporter.Write(
            stream,
            [FrameLogSnapshot.From(RichLog(2, false).Log), FrameLogSnapshot.From(RichLog(1, true).Log)]
        );
        stream.Position = 0;

        IReadOnlyList<FrameLogSnapshot> back = JsonLinesReader.Read(stream);

        Assert.Equal([2L, 1L], back.Select(s => s.ConnectionId));
        Assert.False(back[0].Options.CaptureBodies);
        Assert.True(back[1].Options.CaptureBodies);
        Assert.All(back, s => Assert.Equal(2, s.Findings.Count));
    }

    [Fact]
    public void A_log_without_an_end_line_loads_as_not_ended()
    {
        FrameLog log = RichLog(9, false).Log;
        using var stream = new MemoryStream();
        using (var exporter = new JsonLinesExporter(stream, leaveOpen: true))
        {
            exporter.WriteLogStart(log);
            foreach (FrameRecord frame in log.Snapshot())
                exporter.WriteFrame(log.ConnectionId, frame);
        }
        stream.Position = 0;

        FrameLogSnapshot back = Assert.Single(JsonLinesReader.Read(stream));

        Assert.False(back.Ended);
        Assert.Equal(log.Count, back.Frames.Count);
    }

    [Theory]
    [InlineData("{\"kind\":\"frame\",\"connectionId\":1}", "line 1", "before its log line")]
    [InlineData("not json", "line 1", "")]
    [InlineData(Header + "\n{\"kind\":\"mystery\",\"connectionId\":1}", "line 2", "unknown kind \"mystery\"")]
    [InlineData(Header + "\n" + Header, "line 2", "a second log line")]
    [InlineData(
        Header + "\n\n{\"kind\":\"end\",\"connectionId\":1,\"frames\":3,\"findings\":0}",
        "line 3",
        "counts 3 frames"
    )]
    [InlineData(Header + "\n" + Frame + ",\"payloadDigest\":\"xyz\"}", "line 2", "16 hex digits")]
    [InlineData(Header + "\n" + FrameSideways + "}", "line 2", "sideways")]
    [InlineData(
        "{\"kind\":\"log\",\"connectionId\":1,\"format\":\"amqp-conformance/frame-log\",\"version\":3,\"startedAt\":\"2026-01-01T00:00:00Z\",\"options\":{\"captureBodies\":false,\"recordSent\":true}}",
        "line 1",
        "version 3"
    )]
    [InlineData(
        "{\"kind\":\"log\",\"connectionId\":1,\"format\":\"amqp-conformance/frame-log\",\"version\":1,\"startedAt\":\"2026-01-01T00:00:00Z\",\"options\":{\"captureBodies\":false,\"recordSent\":true}}",
        "line 1",
        "XXH64"
    )]
    public void Bad_input_throws_InvalidDataException_naming_the_line(string text, string where, string what)
    {
        var e = Assert.Throws<InvalidDataException>(() => JsonLinesReader.Read(new StringReader(text)));
        Assert.Contains(where, e.Message);
        Assert.Contains(what, e.Message);
    }

    [Fact]
    public void A_missing_field_is_named()
    {
        string text = Header + "\n" + "{\"kind\":\"frame\",\"connectionId\":1,\"sequence\":0}";
        var e = Assert.Throws<InvalidDataException>(() => JsonLinesReader.Read(new StringReader(text)));
        Assert.Contains("line 2", e.Message);
        Assert.Contains("\"type\" is missing", e.Message);
    }

    [Fact]
    public void An_undefined_type_octet_reads_back_as_that_octet()
    {
        string text =
            Header + "\n" + Frame.Replace("\"type\":\"method\"", "\"type\":\"65\"", StringComparison.Ordinal) + "}";
        FrameRecord frame = Assert.Single(Assert.Single(JsonLinesReader.Read(new StringReader(text))).Frames);
        Assert.Equal((FrameType)65, frame.Type);
    }

    private const string Header =
        "{\"kind\":\"log\",\"connectionId\":1,\"format\":\"amqp-conformance/frame-log\",\"version\":2,\"startedAt\":\"2026-01-01T00:00:00Z\",\"options\":{\"captureBodies\":false,\"recordSent\":true}}";

    /// <summary>A frame line without its closing brace, so a test can append fields.</summary>
    private const string Frame =
        "{\"kind\":\"frame\",\"connectionId\":1,\"sequence\":0,\"direction\":\"received\",\"wireOffset\":8,\"timestamp\":0.5,\"type\":\"method\",\"channel\":0,\"size\":4,\"frameEndValid\":true";

    private const string FrameSideways =
        "{\"kind\":\"frame\",\"connectionId\":1,\"sequence\":0,\"direction\":\"sideways\",\"wireOffset\":8,\"timestamp\":0.5,\"type\":\"method\",\"channel\":0,\"size\":4,\"frameEndValid\":true";
}
