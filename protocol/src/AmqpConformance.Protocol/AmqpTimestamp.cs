namespace AmqpConformance.Protocol;

/// <summary>
/// An AMQP timestamp: a 64-bit count of seconds since the Unix epoch (the 'T' field-table tag and the
/// timestamp content property). Kept as the raw unsigned wire value so round trips are byte-exact.
/// </summary>
/// <param name="UnixSeconds">Seconds since 1970-01-01T00:00:00Z, as on the wire.</param>
public readonly record struct AmqpTimestamp(ulong UnixSeconds)
{
    /// <summary>Converts a point in time, truncated to whole seconds. Times before the epoch are rejected.</summary>
    public static AmqpTimestamp FromDateTimeOffset(DateTimeOffset time)
    {
        long seconds = time.ToUnixTimeSeconds();
        ArgumentOutOfRangeException.ThrowIfNegative(seconds, nameof(time));
        return new AmqpTimestamp((ulong)seconds);
    }

    /// <summary>The timestamp as a <see cref="DateTimeOffset"/> in UTC.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value lies beyond year 9999.</exception>
    public DateTimeOffset ToDateTimeOffset() =>
        UnixSeconds > (ulong)DateTimeOffset.MaxValue.ToUnixTimeSeconds()
            ? throw new ArgumentOutOfRangeException(
                nameof(UnixSeconds),
                UnixSeconds,
                "Timestamp lies beyond DateTimeOffset.MaxValue."
            )
            : DateTimeOffset.FromUnixTimeSeconds((long)UnixSeconds);

    /// <summary>Converts a point in time, truncated to whole seconds.</summary>
    public static implicit operator AmqpTimestamp(DateTimeOffset time) => FromDateTimeOffset(time);

    /// <inheritdoc/>
    public override string ToString() => $"{UnixSeconds}s";
}
