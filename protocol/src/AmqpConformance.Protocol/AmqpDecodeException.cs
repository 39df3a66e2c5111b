namespace AmqpConformance.Protocol;

/// <summary>
/// Thrown when bytes that claim to be AMQP 0-9-1 cannot be decoded: unknown class or method ids,
/// truncated or trailing arguments, unknown field-table type tags, lengths that run past the data,
/// invalid UTF-8 in a short string, or a content header that uses an unsupported feature.
/// The message says what was being read and where.
/// </summary>
public sealed class AmqpDecodeException : Exception
{
    /// <summary>Creates an exception for a problem at <paramref name="offset"/> (bytes from the start of
    /// the payload being decoded; -1 when no single offset applies).</summary>
    public AmqpDecodeException(string message, int offset = -1)
        : base(offset >= 0 ? $"{message} (at offset {offset})" : message)
    {
        Offset = offset;
    }

    /// <summary>Creates an exception that wraps another failure.</summary>
    public AmqpDecodeException(string message, int offset, Exception innerException)
        : base(offset >= 0 ? $"{message} (at offset {offset})" : message, innerException)
    {
        Offset = offset;
    }

    /// <summary>Offset from the start of the decoded payload where the problem was found; -1 if none.</summary>
    public int Offset { get; }
}
