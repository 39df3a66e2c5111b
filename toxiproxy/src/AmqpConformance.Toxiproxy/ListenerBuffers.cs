using System.Net.Sockets;

namespace AmqpConformance.Toxiproxy;

/// <summary>
/// Keeps small what a client can put in flight into the proxy: the connections a listener accepts get Ethernet's
/// segment size (MSS 1460) and a 16 KiB receive buffer. On loopback the segment size is about 64 KiB, and the kernel
/// sizes a connection's send buffer from the segment size and the congestion window (Linux: up to <c>tcp_wmem</c>'s
/// maximum, 4 MiB by default), so a client writing into a proxy that stopped reading could put about 4 MiB into its
/// socket before its write blocked, more than a case sends. Clamped, its write blocks after about 240 KB (measured on
/// Linux 6, loopback): a stall then holds the client's socket writes themselves, part-way through a command.
/// </summary>
/// <remarks>A 16 KiB receive buffer (32 KiB as Linux counts it) still moves hundreds of MB/s over loopback, and turns
/// off the kernel's receive-buffer autotuning for these connections only.</remarks>
internal static class ListenerBuffers
{
    /// <summary>The segment size the proxy's connections are clamped to.</summary>
    public const int SegmentSize = 1460;

    /// <summary>The receive buffer of the proxy's connections.</summary>
    public const int ReceiveBufferSize = 16 * 1024;

    private const int IpProtoTcp = 6;
    private const int TcpMaxSeg = 2; // TCP_MAXSEG on Linux and macOS

    /// <summary>Applies both to <paramref name="listener"/> before it listens: accepted sockets inherit them, and the
    /// proxy announces the segment size and its window in its SYN-ACK. The segment size only on Linux and macOS;
    /// elsewhere, or where the kernel refuses an option, that option stays the kernel's (a stall then needs more bytes
    /// to block the client).</summary>
    public static void Apply(Socket listener)
    {
        try
        {
            listener.ReceiveBufferSize = ReceiveBufferSize;
            if (OperatingSystem.IsLinux() || OperatingSystem.IsMacOS())
                listener.SetRawSocketOption(IpProtoTcp, TcpMaxSeg, BitConverter.GetBytes(SegmentSize));
        }
        catch (SocketException)
        {
            // the kernel refused an option: the proxy still works, a stall just needs more bytes to block the client
        }
    }
}
