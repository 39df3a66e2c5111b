using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Support;

/// <summary>Proves a broker still serves: a fresh connection completes the handshake, publishes with a confirm and
/// gets the message back byte-exact with basic.get.</summary>
internal static class BrokerProbe
{
    public static async Task AssertServesAsync(FakeAmqpBroker broker, CancellationToken cancellationToken)
    {
        await using var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, cancellationToken);
        await client.HandshakeAsync(cancellationToken: cancellationToken);
        await client.OpenChannelAsync(1, cancellationToken);
        await client.SendMethodAsync(1, new ConfirmSelect(), cancellationToken);
        await client.ExpectAsync<ConfirmSelectOk>(cancellationToken);
        await client.SendMethodAsync(1, new QueueDeclare { Exclusive = true }, cancellationToken);
        var declared = await client.ExpectAsync<QueueDeclareOk>(cancellationToken);
        byte[] body = "still serving"u8.ToArray();
        await client.PublishAsync(1, "", declared.Queue, body, 4096, cancellationToken: cancellationToken);
        var ack = await client.ExpectAsync<BasicAck>(cancellationToken);
        Assert.Equal(1UL, ack.DeliveryTag);
        await client.SendMethodAsync(1, new BasicGet { Queue = declared.Queue, NoAck = true }, cancellationToken);
        await client.ExpectAsync<BasicGetOk>(cancellationToken);
        var header = await client.ReadFrameAsync(cancellationToken);
        Assert.Equal(FrameType.Header, header!.Type);
        var bodyFrame = await client.ReadFrameAsync(cancellationToken);
        Assert.Equal(body, bodyFrame!.Payload);
        await client.CloseAsync(cancellationToken);
    }
}
