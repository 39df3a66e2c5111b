namespace AmqpConformance.Properties.Clients;

/// <summary>One channel of a client under test, used by one publisher at a time (the runner serializes shared
/// channels).</summary>
public interface IClientPublisher : IAsyncDisposable
{
    /// <summary>The channel number the client picked.</summary>
    ushort ChannelNumber { get; }

    /// <summary>Publishes <paramref name="body"/> to the default exchange with <paramref name="routingKey"/>, with a
    /// headers table of about <paramref name="headerBytes"/> bytes. Completes as the client's own publish call
    /// completes (with confirms on, the client decides whether that includes the broker's ack). Returns the publish
    /// sequence number the client assigned when confirms are on, else null. The caller reuses <paramref name="body"/>'s
    /// memory as soon as this completes.</summary>
    Task<ulong?> PublishAsync(
        string routingKey,
        ReadOnlyMemory<byte> body,
        int headerBytes,
        CancellationToken cancellationToken
    );
}
