using System.Buffers;
using System.IO.Pipelines;
using AmqpConformance.Protocol.Transport;

namespace AmqpConformance.Protocol.Tests.Transport;

/// <summary><see cref="DuplexPipe.CreatePair"/>: what one end writes the other reads, both ways, and completing one
/// end's output ends the other end's input.</summary>
public sealed class DuplexPipeTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(10);

    private static async Task<byte[]> ReadExactlyAsync(PipeReader input, int count)
    {
        using var cts = new CancellationTokenSource(Timeout);
        while (true)
        {
            var result = await input.ReadAsync(cts.Token);
            if (result.Buffer.Length >= count)
            {
                byte[] bytes = result.Buffer.Slice(0, count).ToArray();
                input.AdvanceTo(result.Buffer.GetPosition(count));
                return bytes;
            }
            Assert.False(result.IsCompleted, "the input ended early");
            input.AdvanceTo(result.Buffer.Start, result.Buffer.End);
        }
    }

    [Fact]
    public async Task Bytes_written_on_one_end_are_read_on_the_other_in_both_directions()
    {
        var (client, server) = DuplexPipe.CreatePair();

        await client.Output.WriteAsync(new byte[] { 1, 2, 3 });
        await server.Output.WriteAsync(new byte[] { 9, 8 });
        await client.Output.WriteAsync(new byte[] { 4 });

        Assert.Equal(new byte[] { 1, 2, 3, 4 }, await ReadExactlyAsync(server.Input, 4));
        Assert.Equal(new byte[] { 9, 8 }, await ReadExactlyAsync(client.Input, 2));
    }

    [Fact]
    public async Task Completing_one_ends_output_ends_the_other_ends_input_after_what_came_before()
    {
        var (client, server) = DuplexPipe.CreatePair();
        await client.Output.WriteAsync(new byte[] { 7 });
        await client.Output.CompleteAsync();

        Assert.Equal(new byte[] { 7 }, await ReadExactlyAsync(server.Input, 1));
        using var cts = new CancellationTokenSource(Timeout);
        var end = await server.Input.ReadAsync(cts.Token);
        Assert.True(end.IsCompleted);
        Assert.True(end.Buffer.IsEmpty);

        // The other direction is still open, and ends the same way, with the error it was completed with.
        await server.Output.WriteAsync(new byte[] { 5 });
        Assert.Equal(new byte[] { 5 }, await ReadExactlyAsync(client.Input, 1));
        await server.Output.CompleteAsync(new IOException("reset"));
        var failed = await Assert.ThrowsAsync<IOException>(async () => await client.Input.ReadAsync(cts.Token));
        Assert.Equal("reset", failed.Message);
    }

    [Fact]
    public async Task The_options_apply_to_both_directions()
    {
        var (client, server) = DuplexPipe.CreatePair(
            new PipeOptions(pauseWriterThreshold: 4, resumeWriterThreshold: 2, useSynchronizationContext: false)
        );

        var toServer = client.Output.WriteAsync(new byte[8]);
        var toClient = server.Output.WriteAsync(new byte[8]);
        Assert.False(toServer.IsCompleted); // past the pause threshold: the flush waits for the reader
        Assert.False(toClient.IsCompleted);
        Assert.Equal(8, (await ReadExactlyAsync(server.Input, 8)).Length);
        Assert.Equal(8, (await ReadExactlyAsync(client.Input, 8)).Length);
        await toServer;
        await toClient;
    }
}
