using System.IO.Pipelines;
using System.Net.Sockets;

namespace AmqpConformance.FakeBroker;

/// <summary>An accepted TCP socket as an <see cref="IDuplexPipe"/> (a <see cref="NetworkStream"/> under
/// <see cref="PipeReader.Create(Stream, StreamPipeReaderOptions?)"/> and <see cref="PipeWriter.Create(Stream, StreamPipeWriterOptions?)"/>).
/// Owns the socket: <see cref="Dispose"/> shuts it down and closes it, which also ends pending reads.</summary>
internal sealed class SocketDuplexPipe : IDuplexPipe, IDisposable
{
    private readonly Socket _socket;
    private readonly NetworkStream _stream;
    private int _disposed;

    public SocketDuplexPipe(Socket socket)
    {
        _socket = socket;
        _socket.NoDelay = true;
        _stream = new NetworkStream(socket, ownsSocket: true);
        Input = PipeReader.Create(_stream, new StreamPipeReaderOptions(bufferSize: 65536, minimumReadSize: 4096, leaveOpen: true));
        Output = PipeWriter.Create(_stream, new StreamPipeWriterOptions(leaveOpen: true));
    }

    public PipeReader Input { get; }

    public PipeWriter Output { get; }

    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        try { _socket.Shutdown(SocketShutdown.Both); }
        catch (SocketException) { }
        catch (ObjectDisposedException) { }
        _stream.Dispose();
    }
}
