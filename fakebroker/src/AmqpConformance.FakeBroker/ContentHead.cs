using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker;

/// <summary>A content header as a <see cref="DeliveredMessage"/> keeps it: the decoded properties and the payload's
/// bytes. A publisher that repeats its header gets the same decoded instance and array back from the connection's cache
/// of the last header, and then its messages share one of these (<see cref="BrokerConnection"/>'s last head). A value:
/// equal when the properties are equal and the payload is the same memory.</summary>
internal sealed record ContentHead(BasicProperties Properties, ReadOnlyMemory<byte> Payload)
{
    /// <summary>The start of a message built from its properties, before its initializer sets them.</summary>
    public static ContentHead Unset { get; } = new(new BasicProperties(), ReadOnlyMemory<byte>.Empty);
}
