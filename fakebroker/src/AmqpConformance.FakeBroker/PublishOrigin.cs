namespace AmqpConformance.FakeBroker;

/// <summary>What a <see cref="DeliveredMessage"/> shares with the other publishes of its channel's stream: who
/// published it, where to, and whether the channel confirms. The connection keeps one per channel and reuses it while
/// consecutive publishes agree (<see cref="ChannelState.LastOrigin"/>), so a stored message refers to it instead of
/// holding six fields of its own. A value: two origins with the same fields are equal (<see cref="RoutedTo"/> by
/// reference, as the message compared it before).</summary>
internal sealed record PublishOrigin(
    long ConnectionId,
    ushort Channel,
    string Exchange,
    string RoutingKey,
    bool Mandatory,
    bool Confirming,
    IReadOnlyList<string> RoutedTo
)
{
    /// <summary>The start of a message built from its properties, before its initializer sets them.</summary>
    public static PublishOrigin Unset { get; } = new(0, 0, "", "", false, false, []);

    /// <summary>Whether a publish with these fields can share this origin.</summary>
    public bool Matches(
        string exchange,
        string routingKey,
        bool mandatory,
        bool confirming,
        IReadOnlyList<string> routedTo
    ) =>
        Mandatory == mandatory
        && Confirming == confirming
        && ReferenceEquals(RoutedTo, routedTo)
        && string.Equals(Exchange, exchange, StringComparison.Ordinal)
        && string.Equals(RoutingKey, routingKey, StringComparison.Ordinal);
}
