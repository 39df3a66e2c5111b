namespace AmqpConformance.Properties.Clients;

/// <summary>One open connection of a client under test. Disposing it closes the connection.</summary>
public interface IClientSession : IAsyncDisposable
{
    /// <summary>Opens a channel (with publisher confirms when the connection was asked for them).</summary>
    Task<IClientPublisher> OpenChannelAsync(CancellationToken cancellationToken);
}
