using System.Buffers;
using AmqpConformance.Protocol;
using static AmqpConformance.TestSupport.Wire;

namespace AmqpConformance.Protocol.Tests;

/// <summary>Exact frame bytes, computed by hand from the AMQP 0-9-1 specification.</summary>
public class WireBytesTests
{
    [Fact]
    public void Heartbeat_frame()
    {
        Assert.Equal(ToHex(Hex("08 0000 00000000 CE")), ToHex(Capture(w => w.WriteHeartbeat())));
    }

    [Fact]
    public void Basic_publish_on_channel_1_to_default_exchange_mandatory()
    {
        var method = new BasicPublish
        {
            Exchange = "",
            RoutingKey = "q",
            Mandatory = true,
        };
        byte[] expected = Hex(
            "01 0001 0000000A"
                + // method frame, channel 1, payload 10
                "003C 0028"
                + // basic.publish (60, 40)
                "0000"
                + // ticket
                "00"
                + // exchange ""
                "01 71"
                + // routing key "q"
                "01"
                + // bits: mandatory (bit 0) set, immediate (bit 1) clear
                "CE"
        );
        Assert.Equal(ToHex(expected), ToHex(Capture(w => w.WriteMethodFrame(1, method))));
        Assert.Equal(method, MethodCodec.Decode(expected.AsSpan(7, 10)));
    }

    [Fact]
    public void Connection_tune_ok()
    {
        var method = new ConnectionTuneOk
        {
            ChannelMax = 2047,
            FrameMax = 131072,
            Heartbeat = 60,
        };
        byte[] expected = Hex("01 0000 0000000C | 000A 001F | 07FF | 00020000 | 003C | CE");
        Assert.Equal(ToHex(expected), ToHex(Capture(w => w.WriteMethodFrame(0, method))));
        Assert.Equal(method, MethodCodec.Decode(expected.AsSpan(7, 12)));
    }

    [Fact]
    public void Connection_start_ok_with_plain_response()
    {
        var method = new ConnectionStartOk
        {
            ClientProperties = FieldTable.Empty,
            Mechanism = "PLAIN",
            Response = "\0guest\0guest"u8.ToArray(),
            Locale = "en_US",
        };
        byte[] expected = Hex(
            "01 0000 00000024"
                + "000A 000B"
                + "00000000"
                + // client-properties: empty table
                "05 504C41494E"
                + // "PLAIN"
                "0000000C 00 6775657374 00 6775657374"
                + // "\0guest\0guest"
                "05 656E5F5553"
                + // "en_US"
                "CE"
        );
        Assert.Equal(ToHex(expected), ToHex(Capture(w => w.WriteMethodFrame(0, method))));
        var decoded = Assert.IsType<ConnectionStartOk>(MethodCodec.Decode(expected.AsSpan(7, 0x24)));
        Assert.Equal(method, decoded);
        Assert.Equal("\0guest\0guest"u8.ToArray(), decoded.Response.ToArray());
    }

    [Fact]
    public void Connection_close_with_failing_method()
    {
        var method = new ConnectionClose
        {
            ReplyCode = 501,
            ReplyText = "x",
            FailingClassId = 60,
            FailingMethodId = 40,
        };
        Assert.Equal("000A003201F50178003C0028", ToHex(MethodCodec.ToPayload(method)));
    }

    [Fact]
    public void Content_header_without_properties()
    {
        var header = new ContentHeader(5);
        byte[] expected = Hex("02 0001 0000000E | 003C 0000 0000000000000005 0000 | CE");
        Assert.Equal(ToHex(expected), ToHex(Capture(w => w.WriteHeaderFrame(1, header))));
        Assert.Equal(header, ContentHeader.Decode(expected.AsSpan(7, 14)));
        Assert.Equal(0, header.Properties.PropertyFlags);
    }

    [Fact]
    public void Content_header_with_all_fourteen_properties()
    {
        var properties = new BasicProperties
        {
            ContentType = "a",
            ContentEncoding = "b",
            Headers = new FieldTable { ["h"] = 1 },
            DeliveryMode = 2,
            Priority = 5,
            CorrelationId = "c",
            ReplyTo = "r",
            Expiration = "60000",
            MessageId = "m",
            Timestamp = new AmqpTimestamp(0x0102030405060708),
            Type = "t",
            UserId = "u",
            AppId = "p",
            ClusterId = "",
        };
        var header = new ContentHeader(16, properties);
        string payload =
            "003C 0000 0000000000000010"
            + "FFFC"
            + // flags: bits 15..2 set
            "01 61"
            + // content-type "a"
            "01 62"
            + // content-encoding "b"
            "00000007 01 68 49 00000001"
            + // headers {h: I 1}
            "02"
            + // delivery-mode
            "05"
            + // priority
            "01 63"
            + // correlation-id "c"
            "01 72"
            + // reply-to "r"
            "05 3630303030"
            + // expiration "60000"
            "01 6D"
            + // message-id "m"
            "0102030405060708"
            + // timestamp
            "01 74"
            + // type "t"
            "01 75"
            + // user-id "u"
            "01 70"
            + // app-id "p"
            "00"; // cluster-id ""
        byte[] expectedPayload = Hex(payload);
        Assert.Equal(ToHex(expectedPayload), ToHex(Capture(header.Encode)));
        Assert.Equal(expectedPayload.Length, header.EncodedLength());
        Assert.Equal(0xFFFC, properties.PropertyFlags);
        Assert.Equal(header, ContentHeader.Decode(expectedPayload));
    }

    [Theory]
    [InlineData(nameof(BasicProperties.ContentType), 15)]
    [InlineData(nameof(BasicProperties.Headers), 13)]
    [InlineData(nameof(BasicProperties.DeliveryMode), 12)]
    [InlineData(nameof(BasicProperties.Timestamp), 6)]
    [InlineData(nameof(BasicProperties.ClusterId), 2)]
    public void Each_property_sets_exactly_its_flag_bit(string property, int bit)
    {
        var properties = property switch
        {
            nameof(BasicProperties.ContentType) => new BasicProperties { ContentType = "x" },
            nameof(BasicProperties.Headers) => new BasicProperties { Headers = FieldTable.Empty },
            nameof(BasicProperties.DeliveryMode) => new BasicProperties { DeliveryMode = 1 },
            nameof(BasicProperties.Timestamp) => new BasicProperties { Timestamp = new AmqpTimestamp(1) },
            _ => new BasicProperties { ClusterId = "c" },
        };
        Assert.Equal(1 << bit, properties.PropertyFlags);
    }

    [Fact]
    public void Body_frames_at_frame_max_4096_carry_4088_byte_chunks()
    {
        byte[] body = Enumerable.Range(0, 10_000).Select(i => (byte)i).ToArray();
        byte[] wire = Capture(w => FrameFormat.WriteBodyFrames(w, 3, body, 4096));

        Assert.Equal(10_000 + 3 * 8, wire.Length);
        var buffer = new System.Buffers.ReadOnlySequence<byte>(wire);
        var sizes = new List<int>();
        var reassembled = new List<byte>();
        while (FrameReader.TryReadFrame(ref buffer, 4088, out var frame) == FrameReadStatus.Frame)
        {
            Assert.Equal(FrameType.Body, frame.Type);
            Assert.Equal(3, frame.Channel);
            sizes.Add(frame.Size);
            reassembled.AddRange(frame.Payload.ToArray());
        }
        Assert.Equal([4088, 4088, 1824], sizes);
        Assert.Equal(body, reassembled);
        Assert.Equal("03 0003 00000FF8".Replace(" ", ""), ToHex(wire.AsSpan(0, 7)));
        Assert.Equal("03 0003 00000720".Replace(" ", ""), ToHex(wire.AsSpan(2 * 4096, 7)));
        Assert.Equal(0xCE, wire[4095]);
        Assert.Equal(0xCE, wire[^1]);
    }
}
