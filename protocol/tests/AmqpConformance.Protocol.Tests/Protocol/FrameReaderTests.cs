using System.Buffers;
using System.IO.Pipelines;
using AmqpConformance.Protocol;
using static AmqpConformance.TestSupport.Wire;

namespace AmqpConformance.Protocol.Tests;

public class FrameReaderTests
{
    private const long MaxPayload = 131072 - 8;

    private static byte[] TwoFrames() =>
        Capture(w =>
        {
            w.WriteMethodFrame(1, new BasicPublish { RoutingKey = "q" });
            w.WriteHeaderFrame(1, new ContentHeader(3));
            FrameFormat.WriteBodyFrames(w, 1, "abc"u8, 4096);
            w.WriteHeartbeat();
        });

    [Fact]
    public void Header_claiming_2_GB_is_refused_from_the_7_header_bytes_alone()
    {
        var buffer = new ReadOnlySequence<byte>(Hex("03 0001 7FFFFFFF"));
        var status = FrameReader.TryReadFrame(ref buffer, MaxPayload, out var frame);

        Assert.Equal(FrameReadStatus.PayloadTooLarge, status);
        Assert.Equal(FrameType.Body, frame.Type);
        Assert.Equal(1, frame.Channel);
        Assert.Equal(0x7FFFFFFF, frame.ClaimedSize);
        Assert.Equal(0x7FFFFFFF, frame.Size);
        Assert.True(frame.Payload.IsEmpty);
        Assert.Equal(7, buffer.Length); // nothing consumed
    }

    [Fact]
    public void Header_claiming_4_GB_reports_the_full_claimed_size()
    {
        var buffer = new ReadOnlySequence<byte>(Hex("01 0000 FFFFFFFF"));
        Assert.Equal(
            FrameReadStatus.PayloadTooLarge,
            FrameReader.TryReadFrame(ref buffer, long.MaxValue - 8, out var frame)
        );
        Assert.Equal(0xFFFFFFFFL, frame.ClaimedSize);
        Assert.Equal(int.MaxValue, frame.Size);
    }

    [Fact]
    public void Payload_exactly_at_the_limit_is_accepted()
    {
        byte[] wire = Capture(w => FrameFormat.WriteBodyFrames(w, 1, new byte[4088], 4096));
        var buffer = new ReadOnlySequence<byte>(wire);
        Assert.Equal(
            FrameReadStatus.Frame,
            FrameReader.TryReadFrame(ref buffer, FrameReader.MaxPayloadFor(4096), out var frame)
        );
        Assert.Equal(4088, frame.Size);
        buffer = new ReadOnlySequence<byte>(wire);
        Assert.Equal(FrameReadStatus.PayloadTooLarge, FrameReader.TryReadFrame(ref buffer, 4087, out _));
    }

    [Fact]
    public void Bad_frame_end_is_reported_and_consumed()
    {
        var buffer = new ReadOnlySequence<byte>(Hex("08 0000 00000000 00 | 08 0000 00000000 CE"));
        Assert.Equal(FrameReadStatus.BadFrameEnd, FrameReader.TryReadFrame(ref buffer, MaxPayload, out var bad));
        Assert.Equal(0x00, bad.EndOctet);
        Assert.False(bad.EndValid);
        Assert.Equal(8, buffer.Length);
        Assert.Equal(FrameReadStatus.Frame, FrameReader.TryReadFrame(ref buffer, MaxPayload, out var good));
        Assert.True(good.EndValid);
        Assert.Equal(FrameType.Heartbeat, good.Type);
        Assert.True(buffer.IsEmpty);
    }

    [Fact]
    public void Fed_one_byte_at_a_time_every_prefix_needs_more_data_until_the_frame_is_whole()
    {
        byte[] wire = TwoFrames();
        var frameEnds = new List<int>();
        int consumed = 0;
        for (int available = 0; available <= wire.Length; available++)
        {
            var buffer = new ReadOnlySequence<byte>(wire, consumed, available - consumed);
            var status = FrameReader.TryReadFrame(ref buffer, MaxPayload, out var frame);
            if (status == FrameReadStatus.NeedMoreData)
            {
                Assert.Equal(available - consumed, buffer.Length);
                continue;
            }
            Assert.Equal(FrameReadStatus.Frame, status);
            Assert.True(buffer.IsEmpty);
            consumed += (int)frame.WireLength;
            frameEnds.Add(available);
        }
        Assert.Equal(consumed, wire.Length);
        Assert.Equal(4, frameEnds.Count); // method, header, body, heartbeat
    }

    [Fact]
    public void Multi_segment_input_yields_the_same_frames_and_payloads()
    {
        byte[] wire = TwoFrames();
        var expected = ReadAll(new ReadOnlySequence<byte>(wire));
        var oneByteSegments = ReadAll(OneBytePerSegment(wire));
        var twoSegments = ReadAll(Segmented(wire[..10], wire[10..]));

        Assert.Equal(4, expected.Count);
        Assert.Equal(expected, oneByteSegments);
        Assert.Equal(expected, twoSegments);
        var publish = MethodCodec.Decode(OneBytePerSegmentPayload(wire, 0));
        Assert.Equal(new BasicPublish { RoutingKey = "q" }, publish);
    }

    [Fact]
    public async Task Frames_come_out_of_a_pipe_written_in_small_chunks()
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        byte[] wire = TwoFrames();
        var pipe = new Pipe();
        var writing = Task.Run(
            async () =>
            {
                for (int i = 0; i < wire.Length; i += 3)
                {
                    await pipe.Writer.WriteAsync(wire.AsMemory(i, Math.Min(3, wire.Length - i)), timeout.Token);
                }
                await pipe.Writer.CompleteAsync();
            },
            timeout.Token
        );

        var types = new List<FrameType>();
        while (true)
        {
            var result = await pipe.Reader.ReadAsync(timeout.Token);
            var buffer = result.Buffer;
            while (FrameReader.TryReadFrame(ref buffer, MaxPayload, out var frame) == FrameReadStatus.Frame)
                types.Add(frame.Type);
            pipe.Reader.AdvanceTo(buffer.Start, buffer.End);
            if (result.IsCompleted)
            {
                Assert.True(buffer.IsEmpty);
                break;
            }
        }
        await writing;
        Assert.Equal([FrameType.Method, FrameType.Header, FrameType.Body, FrameType.Heartbeat], types);
    }

    [Fact]
    public void Max_payload_for_frame_max()
    {
        Assert.Equal(4088, FrameReader.MaxPayloadFor(4096));
        Assert.Equal(FrameReader.DefaultUnlimitedPayloadCap, FrameReader.MaxPayloadFor(0));
        Assert.Equal(1000, FrameReader.MaxPayloadFor(0, unlimitedCap: 1000));
    }

    [Theory]
    [InlineData("414D515000000901", ProtocolHeaderStatus.Amqp091)]
    [InlineData("414D515000000901FFFF", ProtocolHeaderStatus.Amqp091)]
    [InlineData("414D515000010000", ProtocolHeaderStatus.OtherAmqpVersion)] // AMQP 1.0
    [InlineData("414D515001010800", ProtocolHeaderStatus.OtherAmqpVersion)] // AMQP 0-8 as 0-8 clients send it
    [InlineData("414D515000000900", ProtocolHeaderStatus.OtherAmqpVersion)]
    [InlineData("414D5150000001", ProtocolHeaderStatus.OtherAmqpVersion)] // decided before the 8th byte
    [InlineData("414D51", ProtocolHeaderStatus.NeedMoreData)]
    [InlineData("", ProtocolHeaderStatus.NeedMoreData)]
    [InlineData("474554202F204854", ProtocolHeaderStatus.NotAmqp)] // "GET / HT"
    [InlineData("16", ProtocolHeaderStatus.NotAmqp)] // TLS handshake record
    [InlineData("0100000000000C000A", ProtocolHeaderStatus.NotAmqp)] // a frame without the header
    public void Protocol_header_check(string hex, ProtocolHeaderStatus expected)
    {
        byte[] bytes = Hex(hex);
        Assert.Equal(expected, ProtocolHeaderCheck.Inspect(bytes));
        Assert.Equal(expected, ProtocolHeaderCheck.Inspect(OneBytePerSegment(bytes)));
    }

    private static ReadOnlySequence<byte> OneBytePerSegmentPayload(byte[] wire, int frameStart)
    {
        var buffer = OneBytePerSegment(wire).Slice(frameStart);
        Assert.Equal(FrameReadStatus.Frame, FrameReader.TryReadFrame(ref buffer, MaxPayload, out var frame));
        return frame.Payload;
    }

    private static List<(FrameType Type, ushort Channel, int Size, string Payload)> ReadAll(
        ReadOnlySequence<byte> buffer
    )
    {
        var frames = new List<(FrameType, ushort, int, string)>();
        while (FrameReader.TryReadFrame(ref buffer, MaxPayload, out var frame) == FrameReadStatus.Frame)
            frames.Add((frame.Type, frame.Channel, frame.Size, ToHex(frame.Payload.ToArray())));
        Assert.True(buffer.IsEmpty);
        return frames;
    }
}
