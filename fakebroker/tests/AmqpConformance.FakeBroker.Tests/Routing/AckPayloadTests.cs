using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Routing;

/// <summary>The publisher confirms the writer loop encodes without a <see cref="BasicAck"/> object carry the codec's
/// bytes for that method, and decode back to it.</summary>
public sealed class AckPayloadTests
{
    [Theory]
    [InlineData(1UL, false)]
    [InlineData(1UL, true)]
    [InlineData(0x0102030405060708UL, true)]
    [InlineData(ulong.MaxValue, false)]
    public void Encodes_what_the_codec_encodes_for_basic_ack(ulong deliveryTag, bool multiple)
    {
        var expected = MethodCodec.ToPayload(new BasicAck { DeliveryTag = deliveryTag, Multiple = multiple });
        var buffer = new byte[64];

        int length = BrokerConnection.WriteAckPayload(buffer, deliveryTag, multiple);

        Assert.Equal(expected, buffer[..length]);
        var decoded = Assert.IsType<BasicAck>(MethodCodec.Decode(buffer.AsSpan(0, length)));
        Assert.Equal(deliveryTag, decoded.DeliveryTag);
        Assert.Equal(multiple, decoded.Multiple);
    }
}
