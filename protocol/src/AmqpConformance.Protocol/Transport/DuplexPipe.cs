using System.IO.Pipelines;

namespace AmqpConformance.Protocol.Transport;

/// <summary>An <see cref="IDuplexPipe"/> made of any reader and writer: one end of a connection, reading what the other
/// end wrote from <see cref="Input"/> and writing to it through <see cref="Output"/>. <see cref="CreatePair"/> makes
/// the two connected ends of an in-memory connection.</summary>
/// <param name="Input">Where this end reads from.</param>
/// <param name="Output">Where this end writes to.</param>
public sealed record DuplexPipe(PipeReader Input, PipeWriter Output) : IDuplexPipe
{
    /// <summary>The two connected ends of an in-memory connection, over two pipes: the bytes <c>Client</c> writes and
    /// flushes, <c>Server</c> reads, in order, and the other way round. Completing one end's <see cref="Output"/> ends
    /// the other end's <see cref="Input"/> once it has read what came before (with the exception passed to complete,
    /// if any), as a socket's shutdown or reset would; each end completes its own <see cref="Input"/> and
    /// <see cref="Output"/> when done with them. For example, hand <c>Server</c> to a broker's <c>Serve</c> and
    /// <c>Client</c> to the client under test.</summary>
    /// <param name="options">Options for both pipes (each direction's buffering, pause thresholds and schedulers);
    /// null for the defaults without a synchronization context.</param>
    /// <returns>The client's end and the server's end.</returns>
    public static (DuplexPipe Client, DuplexPipe Server) CreatePair(PipeOptions? options = null)
    {
        options ??= new PipeOptions(useSynchronizationContext: false);
        var toServer = new Pipe(options);
        var toClient = new Pipe(options);
        return (new DuplexPipe(toClient.Reader, toServer.Writer), new DuplexPipe(toServer.Reader, toClient.Writer));
    }
}
