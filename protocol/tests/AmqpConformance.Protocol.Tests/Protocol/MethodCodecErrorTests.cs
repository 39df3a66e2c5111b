using AmqpConformance.Protocol;
using static AmqpConformance.TestSupport.Wire;

namespace AmqpConformance.Protocol.Tests;

public class MethodCodecErrorTests
{
    [Theory]
    [InlineData("003C 00FF", "class id 60, method id 255")]
    [InlineData("001E 000A", "class id 30, method id 10")] // access.request: not spoken by RabbitMQ 3.x clients
    [InlineData("FFFF 0001", "class id 65535, method id 1")]
    public void Unknown_ids_are_rejected(string hex, string expectedText)
    {
        var ex = Assert.Throws<AmqpDecodeException>(() => MethodCodec.Decode(Hex(hex)));
        Assert.Contains(expectedText, ex.Message);
        Assert.Equal(0, ex.Offset);
        Assert.Null(MethodCodec.NameOf(Hex(hex)[1], Hex(hex)[3]));
    }

    [Fact]
    public void Payload_shorter_than_the_ids_is_rejected()
    {
        Assert.Throws<AmqpDecodeException>(() => MethodCodec.Decode(Hex("003C00")));
        Assert.False(MethodCodec.TryReadIds(Hex("003C00"), out _, out _));
    }

    [Fact]
    public void Truncated_short_string_names_the_argument_and_offset()
    {
        // basic.publish: ticket, then exchange claims 5 bytes but only 2 follow.
        var ex = Assert.Throws<AmqpDecodeException>(() => MethodCodec.Decode(Hex("003C 0028 0000 05 6162")));
        Assert.Contains("exchange", ex.Message);
        Assert.Equal(7, ex.Offset);
    }

    [Fact]
    public void Invalid_utf8_in_a_short_string_is_rejected()
    {
        var ex = Assert.Throws<AmqpDecodeException>(() => MethodCodec.Decode(Hex("003C 0028 0000 02 C328 00 00")));
        Assert.Contains("UTF-8", ex.Message);
    }

    [Fact]
    public void Short_string_longer_than_255_bytes_is_refused_and_nothing_is_written()
    {
        var method = new BasicPublish { RoutingKey = new string('r', 256) };
        var buffer = new System.Buffers.ArrayBufferWriter<byte>();
        var ex = Assert.Throws<ArgumentException>(() => MethodCodec.Encode(method, buffer));
        Assert.Contains("255", ex.Message);
        Assert.Throws<ArgumentException>(() => MethodCodec.EncodedLength(method));

        // 255 single-byte characters fit; 128 two-byte characters (256 bytes) do not.
        Assert.Equal(4 + 2 + 1 + 256 + 1, MethodCodec.EncodedLength(method with { RoutingKey = new string('r', 255) }));
        Assert.Throws<ArgumentException>(() =>
            MethodCodec.EncodedLength(method with { RoutingKey = new string('é', 128) })
        );
    }

    [Fact]
    public void Foreign_method_implementations_cannot_be_encoded()
    {
        var ex = Assert.Throws<ArgumentException>(() => MethodCodec.ToPayload(new ForeignMethod()));
        Assert.Contains("ForeignMethod", ex.Message);
    }

    [Fact]
    public void Content_header_with_continuation_flag_is_rejected_as_unsupported()
    {
        var ex = Assert.Throws<AmqpDecodeException>(() => ContentHeader.Decode(Hex("003C 0000 0000000000000000 0001")));
        Assert.Contains("continuation", ex.Message);
        Assert.Contains("not supported", ex.Message);
        Assert.Equal(12, ex.Offset);
    }

    [Fact]
    public void Content_header_errors()
    {
        Assert.Contains(
            "class 50",
            Assert
                .Throws<AmqpDecodeException>(() => ContentHeader.Decode(Hex("0032 0000 0000000000000000 0000")))
                .Message
        );
        Assert.Contains(
            "trailing",
            Assert
                .Throws<AmqpDecodeException>(() => ContentHeader.Decode(Hex("003C 0000 0000000000000000 0000 00")))
                .Message
        );
        Assert.Throws<AmqpDecodeException>(() => ContentHeader.Decode(Hex("003C 0000 0000000000000000 8000 05 61")));
    }

    [Fact]
    public void Bits_pack_eight_to_an_octet_then_start_a_new_one()
    {
        var buffer = new System.Buffers.ArrayBufferWriter<byte>();
        var writer = new AmqpWriter(buffer);
        for (int i = 0; i < 9; i++)
            writer.WriteBit(i % 3 == 0); // 1 0 0 1 0 0 1 0 | 0
        writer.WriteShort(0x1234); // a non-bit value closes the octet
        writer.WriteBit(true);
        writer.Flush();
        Assert.Equal("490012340 1".Replace(" ", ""), ToHex(buffer.WrittenSpan));

        var reader = new AmqpReader(buffer.WrittenSpan);
        for (int i = 0; i < 9; i++)
            Assert.Equal(i % 3 == 0, reader.ReadBit());
        Assert.Equal(0x1234, reader.ReadShort());
        Assert.True(reader.ReadBit());
        reader.EnsureEnd("bits");
    }

    [Fact]
    public void Span_writer_refuses_to_overrun_its_destination()
    {
        byte[] destination = new byte[3];
        Assert.Throws<InvalidOperationException>(() => MethodCodec.Encode(new ConnectionCloseOk(), destination));
    }

    private sealed class ForeignMethod : IAmqpMethod
    {
        public ushort ClassId => 60;
        public ushort MethodId => 40;
        public string Name => "basic.publish";
        public bool HasContent => true;
    }
}
