using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker;

/// <summary>A message as the broker received it from a publisher: one complete basic.publish command (method,
/// content header, body). Immutable; the same instance sits in every queue it was routed to, and is what
/// consumers get (delivered with exactly <see cref="HeaderPayload"/> and <see cref="Body"/>).</summary>
public sealed record DeliveredMessage
{
    /// <summary>The publishing connection's <see cref="BrokerConnection.Id"/>.</summary>
    public required long ConnectionId { get; init; }

    /// <summary>The channel it was published on.</summary>
    public required ushort Channel { get; init; }

    /// <summary>The exchange named in basic.publish ("" for the default exchange).</summary>
    public required string Exchange { get; init; }

    /// <summary>The routing key named in basic.publish.</summary>
    public required string RoutingKey { get; init; }

    /// <summary>The mandatory flag of basic.publish.</summary>
    public bool Mandatory { get; init; }

    /// <summary>The publisher-confirm sequence number (the delivery tag of its basic.ack), when the channel was in
    /// confirm mode; null otherwise.</summary>
    public ulong? ConfirmSequence { get; init; }

    /// <summary>The decoded content properties.</summary>
    public required BasicProperties Properties { get; init; }

    /// <summary>The content header frame's payload exactly as received (class, weight, body size,
    /// properties).</summary>
    public required ReadOnlyMemory<byte> HeaderPayload { get; init; }

    /// <summary>The body: the body frames' payloads, concatenated (a copy owned by the broker).</summary>
    /// <remarks>Ownership: the bytes stay valid and unchanged for as long as anybody holds this message. A small body
    /// (up to 4 KiB) is a slice of an array the publishing connection packs small bodies into, end to end, and never
    /// reuses; the array lives while any of its bodies is referred to. A large body (64 KiB to 16 MiB) of a message
    /// that went only to queues, with <see cref="FakeAmqpBrokerOptions.KeepPublished"/> off, lives in an array of the
    /// process-wide <see cref="BodyPool"/> (so it may be a slice of a longer array), and that array is reused for later
    /// bodies only if every queue dropped the message unread (purge, queue deletion, an exclusive queue's connection
    /// ending) and it never became reachable from outside the queues: a delivery, basic.get,
    /// <see cref="BrokerQueue.ReadyMessages"/>, <see cref="BrokerConnection.Published"/> or a basic.return makes its
    /// array the message's for good (<see cref="PooledBody"/>).</remarks>
    public required ReadOnlyMemory<byte> Body { get; init; }

    /// <summary>The frame-log sequence number of the basic.publish method frame.</summary>
    public required long MethodSequence { get; init; }

    /// <summary>Names of the queues it was routed to (empty when unroutable).</summary>
    public IReadOnlyList<string> RoutedTo { get; init; } = [];
}
