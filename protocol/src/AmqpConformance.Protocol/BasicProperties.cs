namespace AmqpConformance.Protocol;

/// <summary>
/// The 14 content properties of the basic class, as a content header carries them. A null property is
/// absent: its flag bit is clear and nothing is written for it. <see cref="PropertyFlags"/> follows from
/// which properties are present (bit 15 = content-type ... bit 2 = cluster-id).
/// </summary>
public sealed record BasicProperties
{
    /// <summary>No properties at all (flags 0x0000).</summary>
    public static BasicProperties Empty { get; } = new();

    /// <summary>MIME content type (bit 15, shortstr).</summary>
    public string? ContentType { get; init; }

    /// <summary>MIME content encoding (bit 14, shortstr).</summary>
    public string? ContentEncoding { get; init; }

    /// <summary>Application headers (bit 13, table).</summary>
    public FieldTable? Headers { get; init; }

    /// <summary>1 = transient, 2 = persistent (bit 12, octet).</summary>
    public byte? DeliveryMode { get; init; }

    /// <summary>Priority 0-9 (bit 11, octet).</summary>
    public byte? Priority { get; init; }

    /// <summary>Correlation id (bit 10, shortstr).</summary>
    public string? CorrelationId { get; init; }

    /// <summary>Address to reply to (bit 9, shortstr).</summary>
    public string? ReplyTo { get; init; }

    /// <summary>Message TTL in milliseconds, as a decimal string (bit 8, shortstr).</summary>
    public string? Expiration { get; init; }

    /// <summary>Application message id (bit 7, shortstr).</summary>
    public string? MessageId { get; init; }

    /// <summary>Message timestamp (bit 6, timestamp).</summary>
    public AmqpTimestamp? Timestamp { get; init; }

    /// <summary>Message type name (bit 5, shortstr).</summary>
    public string? Type { get; init; }

    /// <summary>Creating user id; RabbitMQ checks it against the connection's user (bit 4, shortstr).</summary>
    public string? UserId { get; init; }

    /// <summary>Creating application id (bit 3, shortstr).</summary>
    public string? AppId { get; init; }

    /// <summary>Reserved; must be absent for RabbitMQ (bit 2, shortstr).</summary>
    public string? ClusterId { get; init; }

    /// <summary>The property-flags word: one bit per present property, bit 15 first; bits 1 and 0 clear.</summary>
    public ushort PropertyFlags =>
        (ushort)(
            (ContentType is null ? 0 : 1 << 15)
            | (ContentEncoding is null ? 0 : 1 << 14)
            | (Headers is null ? 0 : 1 << 13)
            | (DeliveryMode is null ? 0 : 1 << 12)
            | (Priority is null ? 0 : 1 << 11)
            | (CorrelationId is null ? 0 : 1 << 10)
            | (ReplyTo is null ? 0 : 1 << 9)
            | (Expiration is null ? 0 : 1 << 8)
            | (MessageId is null ? 0 : 1 << 7)
            | (Timestamp is null ? 0 : 1 << 6)
            | (Type is null ? 0 : 1 << 5)
            | (UserId is null ? 0 : 1 << 4)
            | (AppId is null ? 0 : 1 << 3)
            | (ClusterId is null ? 0 : 1 << 2)
        );

    /// <summary>Writes the flags word and the present properties, in flag order.</summary>
    public void Write(ref AmqpWriter writer)
    {
        writer.WriteShort(PropertyFlags);
        if (ContentType is not null)
            writer.WriteShortString(ContentType);
        if (ContentEncoding is not null)
            writer.WriteShortString(ContentEncoding);
        if (Headers is not null)
            writer.WriteFieldTable(Headers);
        if (DeliveryMode is { } deliveryMode)
            writer.WriteOctet(deliveryMode);
        if (Priority is { } priority)
            writer.WriteOctet(priority);
        if (CorrelationId is not null)
            writer.WriteShortString(CorrelationId);
        if (ReplyTo is not null)
            writer.WriteShortString(ReplyTo);
        if (Expiration is not null)
            writer.WriteShortString(Expiration);
        if (MessageId is not null)
            writer.WriteShortString(MessageId);
        if (Timestamp is { } timestamp)
            writer.WriteTimestamp(timestamp);
        if (Type is not null)
            writer.WriteShortString(Type);
        if (UserId is not null)
            writer.WriteShortString(UserId);
        if (AppId is not null)
            writer.WriteShortString(AppId);
        if (ClusterId is not null)
            writer.WriteShortString(ClusterId);
    }

    /// <summary>Reads the flags word and the properties it announces.</summary>
    /// <exception cref="AmqpDecodeException">Bit 0 (continuation) or bit 1 is set, or a property is cut
    /// short.</exception>
    internal static BasicProperties Read(ref AmqpReader reader)
    {
        int flagsOffset = reader.Offset;
        ushort flags = reader.ReadShort("property flags");
        if ((flags & 1) != 0)
            throw new AmqpDecodeException(
                $"Property flags 0x{flags:X4} set bit 0 (a continuation flags word); basic has 14 properties, "
                    + "so a continuation is never needed and is not supported",
                flagsOffset
            );
        if ((flags & 2) != 0)
            throw new AmqpDecodeException(
                $"Property flags 0x{flags:X4} set bit 1, which no basic property uses",
                flagsOffset
            );
        bool Has(int bit) => (flags & (1 << bit)) != 0;
        return new BasicProperties
        {
            ContentType = Has(15) ? reader.ReadShortString("content-type") : null,
            ContentEncoding = Has(14) ? reader.ReadShortString("content-encoding") : null,
            Headers = Has(13) ? reader.ReadFieldTable("headers") : null,
            DeliveryMode = Has(12) ? reader.ReadOctet("delivery-mode") : null,
            Priority = Has(11) ? reader.ReadOctet("priority") : null,
            CorrelationId = Has(10) ? reader.ReadShortString("correlation-id") : null,
            ReplyTo = Has(9) ? reader.ReadShortString("reply-to") : null,
            Expiration = Has(8) ? reader.ReadShortString("expiration") : null,
            MessageId = Has(7) ? reader.ReadShortString("message-id") : null,
            Timestamp = Has(6) ? reader.ReadTimestamp("timestamp") : null,
            Type = Has(5) ? reader.ReadShortString("type") : null,
            UserId = Has(4) ? reader.ReadShortString("user-id") : null,
            AppId = Has(3) ? reader.ReadShortString("app-id") : null,
            ClusterId = Has(2) ? reader.ReadShortString("cluster-id") : null,
        };
    }
}
