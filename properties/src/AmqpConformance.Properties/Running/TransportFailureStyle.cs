using System.Net.Sockets;

namespace AmqpConformance.Properties.Running;

/// <summary>How a transport failure reaches the writer from its output's flush. A socket's output does not fail with
/// <see cref="IOException"/> alone: a reset can surface as a <see cref="SocketException"/>, and an output whose stream
/// was torn down as an <see cref="ObjectDisposedException"/>. Each case draws one style from its seed, so a writer
/// that stops only on an IOException and carries on after any other exception is caught.</summary>
internal enum TransportFailureStyle
{
    /// <summary>The transport's own exception (an IOException: TransportResetException or
    /// TransportClosedException).</summary>
    AsThrown,

    /// <summary>A <see cref="SocketException"/> with <see cref="SocketError.ConnectionReset"/>.</summary>
    SocketError,

    /// <summary>An <see cref="ObjectDisposedException"/> whose inner exception is the transport's.</summary>
    Disposed,
}

/// <summary>Turns a transport failure into the exception a <see cref="TransportFailureStyle"/> says.</summary>
internal static class TransportFailureStyles
{
    /// <summary>The style case <paramref name="seed"/> uses: each of the three in turn.</summary>
    public static TransportFailureStyle ForSeed(int seed) => (TransportFailureStyle)((uint)seed % 3);

    /// <summary>The exception the writer sees for <paramref name="failure"/>.</summary>
    public static Exception Translate(this TransportFailureStyle style, IOException failure) =>
        style switch
        {
            TransportFailureStyle.SocketError => new SocketException(
                (int)System.Net.Sockets.SocketError.ConnectionReset
            ),
            TransportFailureStyle.Disposed => new ObjectDisposedException(
                $"The connection's output was torn down: {failure.Message}",
                failure
            ),
            _ => failure,
        };
}
