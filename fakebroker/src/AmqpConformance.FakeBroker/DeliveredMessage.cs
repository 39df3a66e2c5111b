using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker;

/// <summary>A message as the broker received it from a publisher: one complete basic.publish command (method,
/// content header, body). Immutable, and compared by value. Consumers get exactly <see cref="HeaderPayload"/> and
/// <see cref="Body"/>. A queue keeps a message's parts, not an instance: each read from a queue
/// (<see cref="BrokerQueue.ReadyMessages"/>) builds new instances, equal to those of an earlier read, unless the message
/// was kept in <see cref="BrokerConnection.Published"/>, whose instance every queue then hands out.</summary>
public sealed record DeliveredMessage
{
    // Why one field of parts: a queue that stores many small messages keeps no instance per message at all (it keeps
    // the parts, see MessageParts), and what is the same for every publish of a channel's stream (publisher, route,
    // whether confirmed) and of a repeated content header is shared (PublishOrigin, ContentHead). The public surface
    // and value equality are those of the plain record it was: the parts are compared by value.
    private MessageParts _parts = MessageParts.Unset;

    /// <summary>A message built from its properties (tests, tools).</summary>
    public DeliveredMessage() { }

    /// <summary>The broker's own: a message of these parts.</summary>
    // The required properties read the parts this sets, so the compiler's wish to see each one assigned is moot.
#pragma warning disable CS8618
    [System.Diagnostics.CodeAnalysis.SetsRequiredMembers]
    internal DeliveredMessage(in MessageParts parts) => _parts = parts;
#pragma warning restore CS8618

    /// <summary>What it is made of, as a queue keeps it.</summary>
    internal MessageParts Parts => _parts;

    /// <summary>What it shares with the other publishes of its channel's stream (for tests).</summary>
    internal PublishOrigin Origin => _parts.Origin;

    /// <summary>Its content header, shared with the messages before it that repeated it (for tests).</summary>
    internal ContentHead Head => _parts.Head;

    /// <summary>The publishing connection's <see cref="BrokerConnection.Id"/>.</summary>
    public required long ConnectionId
    {
        get => _parts.Origin.ConnectionId;
        init => _parts = _parts with { Origin = _parts.Origin with { ConnectionId = value } };
    }

    /// <summary>The channel it was published on.</summary>
    public required ushort Channel
    {
        get => _parts.Origin.Channel;
        init => _parts = _parts with { Origin = _parts.Origin with { Channel = value } };
    }

    /// <summary>The exchange named in basic.publish ("" for the default exchange).</summary>
    public required string Exchange
    {
        get => _parts.Origin.Exchange;
        init => _parts = _parts with { Origin = _parts.Origin with { Exchange = value } };
    }

    /// <summary>The routing key named in basic.publish.</summary>
    public required string RoutingKey
    {
        get => _parts.Origin.RoutingKey;
        init => _parts = _parts with { Origin = _parts.Origin with { RoutingKey = value } };
    }

    /// <summary>The mandatory flag of basic.publish.</summary>
    public bool Mandatory
    {
        get => _parts.Origin.Mandatory;
        init => _parts = _parts with { Origin = _parts.Origin with { Mandatory = value } };
    }

    /// <summary>The publisher-confirm sequence number (the delivery tag of its basic.ack), when the channel was in
    /// confirm mode; null otherwise.</summary>
    public ulong? ConfirmSequence
    {
        get => _parts.Origin.Confirming ? _parts.ConfirmSequence : null;
        init
        {
            _parts = _parts with
            {
                Origin = _parts.Origin with { Confirming = value.HasValue },
                ConfirmSequence = value ?? 0,
            };
        }
    }

    /// <summary>The decoded content properties.</summary>
    public required BasicProperties Properties
    {
        get => _parts.Head.Properties;
        init => _parts = _parts with { Head = _parts.Head with { Properties = value } };
    }

    /// <summary>The content header frame's payload exactly as received (class, weight, body size,
    /// properties).</summary>
    public required ReadOnlyMemory<byte> HeaderPayload
    {
        get => _parts.Head.Payload;
        init => _parts = _parts with { Head = _parts.Head with { Payload = value } };
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
        get => _parts.Body;
        init => _parts = _parts with { Body = value };
    }

    /// <summary>The frame-log sequence number of the basic.publish method frame.</summary>
    public required long MethodSequence
    {
        get => _parts.MethodSequence;
        init => _parts = _parts with { MethodSequence = value };
    }

    /// <summary>Names of the queues it was routed to (empty when unroutable).</summary>
    public IReadOnlyList<string> RoutedTo
    {
        get => _parts.Origin.RoutedTo;
        init => _parts = _parts with { Origin = _parts.Origin with { RoutedTo = value } };
    }
}
