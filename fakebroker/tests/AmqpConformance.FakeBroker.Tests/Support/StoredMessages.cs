using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Support;

/// <summary>Messages for tests that drive a virtual host's queues directly, without a connection.</summary>
internal static class StoredMessages
{
    /// <summary>A message published on connection 1, channel 1, to <paramref name="routingKey"/> through the default
    /// exchange, with no properties and <paramref name="body"/>.</summary>
    public static DeliveredMessage To(string routingKey, ReadOnlyMemory<byte> body, long methodSequence = 1) =>
        new()
        {
            ConnectionId = 1,
            Channel = 1,
            Exchange = "",
            RoutingKey = routingKey,
            Properties = new BasicProperties(),
            HeaderPayload = ReadOnlyMemory<byte>.Empty,
            Body = body,
            MethodSequence = methodSequence,
        };
}
