using System.Buffers;
using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;

namespace AmqpConformance.FakeBroker.Tests.Transport;

/// <summary><see cref="SocketDuplexPipe"/>'s reader: it takes a receive block only once data has arrived, reads up to a
/// whole block at a time, and gives blocks back as their bytes are consumed.</summary>
public sealed class SocketDuplexPipeTests
{
    [Fact]
    public async Task A_connection_waiting_for_data_holds_no_receive_block()
    {
        var blocks = new ReceiveBlockPool(new BodyPool(retainedLimit: 4 * 1024 * 1024));
        (Socket client, Socket server) = await ConnectedPairAsync();
        using var _ = client;
        using var pipe = new SocketDuplexPipe(server, blocks);

        ValueTask<ReadResult> pending = pipe.Input.ReadAsync();
        Assert.False(pending.IsCompleted);
        Assert.Equal(0, blocks.Outstanding); // waiting with a zero-byte read, not in a block

        await client.SendAsync(new byte[1000]);
        ReadResult result = await pending;
        Assert.Equal(1000, result.Buffer.Length);
        Assert.Equal(1, blocks.Outstanding);

        pipe.Input.AdvanceTo(result.Buffer.End);
        Assert.Equal(0, blocks.Outstanding); // every byte consumed: the block went back

        pending = pipe.Input.ReadAsync();
        Assert.False(pending.IsCompleted);
        Assert.Equal(0, blocks.Outstanding);
        client.Shutdown(SocketShutdown.Send);
        Assert.True((await pending).IsCompleted);
    }

    [Fact]
    public async Task Bytes_already_waiting_are_read_a_whole_block_at_a_time_and_arrive_intact()
    {
        var blocks = new ReceiveBlockPool(new BodyPool(retainedLimit: 4 * 1024 * 1024));
        (Socket client, Socket server) = await ConnectedPairAsync();
        using var _ = client;
        server.ReceiveBufferSize = 1024 * 1024;
        using var pipe = new SocketDuplexPipe(server, blocks);
        byte[] sent = new byte[3 * ReceiveBlockPool.BlockSize / 2];
        new Random(7).NextBytes(sent);

        for (int offset = 0; offset < sent.Length; )
            offset += await client.SendAsync(sent.AsMemory(offset));
        while (server.Available < sent.Length)
            await Task.Yield(); // all of it in the kernel before the first read

        ReadResult first = await pipe.Input.ReadAsync();
        Assert.Equal(ReceiveBlockPool.BlockSize, first.Buffer.Length); // one read filled one block
        pipe.Input.AdvanceTo(first.Buffer.Start, first.Buffer.End);

        var received = new List<byte>();
        while (true)
        {
            ReadResult result = await pipe.Input.ReadAsync();
            if (result.Buffer.Length >= sent.Length)
            {
                received.AddRange(result.Buffer.ToArray());
                pipe.Input.AdvanceTo(result.Buffer.End);
                break;
            }
            pipe.Input.AdvanceTo(result.Buffer.Start, result.Buffer.End);
        }
        Assert.Equal(sent, received);
        Assert.Equal(0, blocks.Outstanding);
    }

    private static async Task<(Socket Client, Socket Server)> ConnectedPairAsync()
    {
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(1);
        var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        Task connect = client.ConnectAsync(listener.LocalEndPoint!);
        Socket server = await listener.AcceptAsync();
        await connect;
        return (client, server);
    }
}
