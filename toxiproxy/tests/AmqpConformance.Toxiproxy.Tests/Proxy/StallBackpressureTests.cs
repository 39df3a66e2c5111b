using System.Net.Sockets;

namespace AmqpConformance.Toxiproxy.Tests.Proxy;

/// <summary><see cref="FaultProxy.Stall"/> applies real TCP backpressure: the proxy stops reading the client's socket
/// (not only forwarding), and keeps its client connections' buffers small (Ethernet's segment size, a 16 KiB receive
/// buffer), so the client's socket write blocks after a bounded number
/// of bytes, far fewer than the ~4 MiB a loopback connection otherwise takes in; when the stall ends, everything held
/// arrives.</summary>
[Trait("Area", "Faults")]
public sealed class StallBackpressureTests
{
    private const int Chunk = 64 * 1024;

    [Fact]
    public async Task A_stall_stops_reading_the_client_so_its_write_blocks_and_everything_arrives_after()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        await using var rig = new LoopbackProxyRig();
        FaultProxy proxy = rig.Proxy;
        var started = new TaskCompletionSource<FaultProxyConnection>(
            TaskCreationOptions.RunContinuationsAsynchronously
        );
        proxy.ForwardingStarting = c => started.TrySetResult(c);
        var (connected, upstreamEnd) = await rig.ConnectAsync(cts.Token);
        using TcpClient client = connected;
        using TcpClient accepted = upstreamEnd;
        FaultProxyConnection connection = await started.Task.WaitAsync(cts.Token);
        NetworkStream received = accepted.GetStream();
        // Forwarding works before the stall, and the proxy has a receive posted on the client's socket.
        await client.GetStream().WriteAsync(new byte[100], cts.Token);
        Assert.Equal(100, await ReadAsync(received, 100, cts.Token));

        long absorbed;
        using (proxy.Stall())
        {
            absorbed = await WriteUntilBlockedAsync(client.Client, cts.Token);
            // At most the receive posted before the stall completed; nothing was read after it.
            Assert.InRange(connection.ReceivedFromClient - 100, 0, 16 * 1024);
            if (OperatingSystem.IsLinux())
                Assert.InRange(absorbed, 1, 512 * 1024); // ~240 KB; ~4 MiB with loopback's own buffers
        }

        Assert.Equal(absorbed, await ReadAsync(received, absorbed, cts.Token));
    }

    /// <summary>Writes without blocking until the socket takes nothing more five times in a row (a transient refusal
    /// is retried), and returns how many bytes it took.</summary>
    private static async Task<long> WriteUntilBlockedAsync(Socket socket, CancellationToken ct)
    {
        byte[] chunk = new byte[Chunk];
        long total = 0;
        int refused = 0;
        socket.Blocking = false;
        try
        {
            while (refused < 5 && total < 64L << 20)
            {
                ct.ThrowIfCancellationRequested();
                int n = socket.Send(chunk, SocketFlags.None, out SocketError error);
                if (error == SocketError.WouldBlock)
                {
                    refused++;
                    await Task.Delay(20, ct);
                    continue;
                }
                Assert.Equal(SocketError.Success, error);
                total += n;
                refused = 0;
            }
        }
        finally
        {
            socket.Blocking = true;
        }
        return total;
    }

    private static async Task<long> ReadAsync(NetworkStream stream, long count, CancellationToken ct)
    {
        byte[] buffer = new byte[Chunk];
        long total = 0;
        while (total < count)
        {
            int n = await stream.ReadAsync(buffer.AsMemory(0, (int)Math.Min(buffer.Length, count - total)), ct);
            if (n == 0)
                break;
            total += n;
        }
        return total;
    }
}
