using System.IO.Pipelines;

namespace AmqpConformance.Harness.Client;

/// <summary>An <see cref="IDuplexPipe"/> made of any reader and writer, and in-memory connection pairs.</summary>
/// <param name="Input">Where this side reads from.</param>
/// <param name="Output">Where this side writes to.</param>
public sealed record DuplexPipe(PipeReader Input, PipeWriter Output) : IDuplexPipe
{
    /// <summary>Two connected ends over two pipes: what <c>Client</c> writes, <c>Server</c> reads, and the other way
    /// round. Hand <c>Server</c> to <c>FakeBroker.Serve</c> and <c>Client</c> to
    /// <see cref="HarnessConnection.ConnectAsync(IDuplexPipe, HarnessClientOptions?, CancellationToken)"/>.</summary>
    /// <param name="options">Options for both pipes; null for defaults without a synchronization context.</param>
    public static (DuplexPipe Client, DuplexPipe Server) CreatePair(PipeOptions? options = null)
    {
        options ??= new PipeOptions(useSynchronizationContext: false);
        var toServer = new Pipe(options);
        var toClient = new Pipe(options);
        return (new DuplexPipe(toClient.Reader, toServer.Writer), new DuplexPipe(toServer.Reader, toClient.Writer));
    }
}
