using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker;

/// <summary>A message as the broker received it from a publisher: one complete basic.publish command (method,
/// content header, body). Immutable; the same instance sits in every queue it was routed to, and is what
/// consumers get (delivered with exactly <see cref="HeaderPayload"/> and <see cref="Body"/>).</summary>
public sealed record DeliveredMessage
{
    // Why fields behind the properties: a queue that stores many small messages keeps one of these per message, and
    // each collection that finds them young copies them. What is the same for every publish of a channel's stream
    // (publisher, route, whether confirmed) and of a repeated content header is shared (PublishOrigin, ContentHead),
    // which halves the object (64 bytes, not 120). The public surface and value equality are those of the plain record
    // it was: the shared parts are records too, compared by value.
    private PublishOrigin _origin = PublishOrigin.Unset;
    private ContentHead _head = ContentHead.Unset;
    private ReadOnlyMemory<byte> _body;
    private ulong _confirmSequence;
    private long _methodSequence;

    /// <summary>A message built from its properties (tests, tools).</summary>
    public DeliveredMessage() { }

    /// <summary>The broker's own: a message of <paramref name="origin"/>'s publish stream with
    /// <paramref name="head"/>'s content header.</summary>
    // The required properties read the fields this sets, so the compiler's wish to see each one assigned is moot.
#pragma warning disable CS8618
    [System.Diagnostics.CodeAnalysis.SetsRequiredMembers]
    internal DeliveredMessage(
        PublishOrigin origin,
        ContentHead head,
        ReadOnlyMemory<byte> body,
        ulong confirmSequence,
        long methodSequence
    )
    {
        _origin = origin;
        _head = head;
        _body = body;
        _confirmSequence = confirmSequence;
        _methodSequence = methodSequence;
    }
#pragma warning restore CS8618

    /// <summary>What it shares with the other publishes of its channel's stream (for tests).</summary>
    internal PublishOrigin Origin => _origin;

    /// <summary>Its content header, shared with the messages before it that repeated it (for tests).</summary>
    internal ContentHead Head => _head;

    /// <summary>The publishing connection's <see cref="BrokerConnection.Id"/>.</summary>
    public required long ConnectionId
    {
        get => _origin.ConnectionId;
        init => _origin = _origin with { ConnectionId = value };
    }

    /// <summary>The channel it was published on.</summary>
    public required ushort Channel
    {
        get => _origin.Channel;
        init => _origin = _origin with { Channel = value };
    }

    /// <summary>The exchange named in basic.publish ("" for the default exchange).</summary>
    public required string Exchange
    {
        get => _origin.Exchange;
        init => _origin = _origin with { Exchange = value };
    }

    /// <summary>The routing key named in basic.publish.</summary>
    public required string RoutingKey
    {
        get => _origin.RoutingKey;
        init => _origin = _origin with { RoutingKey = value };
    }

    /// <summary>The mandatory flag of basic.publish.</summary>
    public bool Mandatory
    {
        get => _origin.Mandatory;
        init => _origin = _origin with { Mandatory = value };
    }

    /// <summary>The publisher-confirm sequence number (the delivery tag of its basic.ack), when the channel was in
    /// confirm mode; null otherwise.</summary>
    public ulong? ConfirmSequence
    {
        get => _origin.Confirming ? _confirmSequence : null;
        init
        {
            _origin = _origin with { Confirming = value.HasValue };
            _confirmSequence = value ?? 0;
        }
    }

    /// <summary>The decoded content properties.</summary>
    public required BasicProperties Properties
    {
        get => _head.Properties;
        init => _head = _head with { Properties = value };
    }

    /// <summary>The content header frame's payload exactly as received (class, weight, body size,
    /// properties).</summary>
    public required ReadOnlyMemory<byte> HeaderPayload
    {
        get => _head.Payload;
        init => _head = _head with { Payload = value };
    }

    /// <summary>The body: the body frames' payloads, concatenated (a copy owned by the broker).</summary>
    /// <remarks>Ownership: the bytes stay valid and unchanged for as long as anybody holds this message. A small body
    /// (up to 4 KiB) is a slice of an array the publishing connection packs small bodies into, end to end
    /// (<see cref="BodySlab"/>); a large body (64 KiB to 16 MiB) lives in an array of the process-wide
    /// <see cref="BodyPool"/> (so it may be a slice of a longer array). Either array is reused for later bodies only if
    /// every queue dropped every message in it unread (purge, queue deletion, an exclusive queue's connection ending),
    /// the message went only to queues, with <see cref="FakeAmqpBrokerOptions.KeepPublished"/> off, and it never
    /// became reachable from outside the queues: a delivery, basic.get, <see cref="BrokerQueue.ReadyMessages"/>,
    /// <see cref="BrokerConnection.Published"/> or a basic.return makes its array the message's for good
    /// (<see cref="PooledBody"/>).</remarks>
    public required ReadOnlyMemory<byte> Body
    {
        get => _body;
        init => _body = value;
    }

    /// <summary>The frame-log sequence number of the basic.publish method frame.</summary>
    public required long MethodSequence
    {
        get => _methodSequence;
        init => _methodSequence = value;
    }

    /// <summary>Names of the queues it was routed to (empty when unroutable).</summary>
    public IReadOnlyList<string> RoutedTo
    {
        get => _origin.RoutedTo;
        init => _origin = _origin with { RoutedTo = value };
    }
}
