using System.IO.Pipelines;
using System.Net.Sockets;

namespace AmqpConformance.FakeBroker;

/// <summary>An accepted TCP socket as an <see cref="IDuplexPipe"/> (a <see cref="NetworkStream"/> under
/// <see cref="PipeReader.Create(Stream, StreamPipeReaderOptions?)"/> and
/// <see cref="PipeWriter.Create(Stream, StreamPipeWriterOptions?)"/>). Owns the socket: <see cref="Dispose"/> shuts it
/// down and closes it, which also ends pending reads.</summary>
/// <remarks>The reader reads up to <see cref="ReceiveBlockPool.BlockSize"/> bytes at a time into blocks of a
/// <see cref="ReceiveBlockPool"/>, and waits for data with a zero-byte read before it takes a block, so a connection
/// waiting for its client holds no receive memory; a block goes back to the pool once every byte in it was
/// consumed.</remarks>
internal sealed class SocketDuplexPipe : IDuplexPipe, IDisposable
{
    private readonly Socket _socket;
    private readonly NetworkStream _stream;
    private int _disposed;

    /// <summary>The socket's streams, its reads going into blocks of
    /// <see cref="ReceiveBlockPool.ForSockets"/>.</summary>
    public SocketDuplexPipe(Socket socket)
        : this(socket, ReceiveBlockPool.ForSockets) { }

    /// <summary>The socket's streams, its reads going into blocks of <paramref name="receiveBlocks"/>.</summary>
    public SocketDuplexPipe(Socket socket, ReceiveBlockPool receiveBlocks)
    {
        _socket = socket;
        _socket.NoDelay = true;
        _stream = new NetworkStream(socket, ownsSocket: true);
        Input = PipeReader.Create(
            _stream,
            new StreamPipeReaderOptions(
                pool: receiveBlocks,
                bufferSize: ReceiveBlockPool.BlockSize,
                minimumReadSize: 4096,
                leaveOpen: true,
                useZeroByteReads: true
            )
        );
        Output = PipeWriter.Create(_stream, new StreamPipeWriterOptions(leaveOpen: true));
    }

    public PipeReader Input { get; }

    public PipeWriter Output { get; }

    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        try
        {
            _socket.Shutdown(SocketShutdown.Both);
        }
        catch (SocketException) { } // the peer already reset the socket: nothing left to shut down
        catch (ObjectDisposedException) { } // closed already: nothing left to shut down
        _stream.Dispose();
    }
}
