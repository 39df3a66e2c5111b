using AmqpConformance.FakeBroker;
using AmqpConformance.Harness.Client;
using AmqpConformance.Harness.Tests.Writers.Support;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.Protocol.Transport;
using AmqpConformance.TestSupport.Peers;

namespace AmqpConformance.Harness.Tests.Client;

public sealed class ClientHandshakeTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task OpenChannelsAsync_opens_every_channel_in_one_flush_and_reads_every_reply(bool confirms)
    {
        using var deadline = new CancellationTokenSource(WriterTestKit.TestTimeout);
        await using var broker = FakeAmqpBroker.CreateWithoutListener();
        var (client, server) = DuplexPipe.CreatePair();
        var connection = broker.Serve(server);
        await ClientHandshake.OpenAsync(client, new HarnessClientOptions(), deadline.Token);

        // One flush, counted on the client's output. (The broker's log cannot show it: its replies are recorded as they
        // are sent, which on a loaded machine can be between two requests it took from the same read.)
        var counted = new TestPipeWriter(client.Output);
        await ClientHandshake.OpenChannelsAsync(client with { Output = counted }, [1, 2, 5], confirms, deadline.Token);
        Assert.Equal(1, counted.Flushes);

        var frames = connection.Log.Snapshot();
        var opens = frames
            .Where(f => f.Direction == FrameDirection.Received && f.MethodName == "channel.open")
            .ToList();
        Assert.Equal([1, 2, 5], opens.Select(f => (int)f.Channel));
        Assert.Equal(3, frames.Count(f => f.Direction == FrameDirection.Sent && f.MethodName == "channel.open-ok"));
        Assert.Equal(
            confirms ? 3 : 0,
            frames.Count(f => f.Direction == FrameDirection.Sent && f.MethodName == "confirm.select-ok")
        );
        Assert.Empty(connection.Findings);

        // Every reply was read: the next thing on the input is the answer to what is sent next.
        var peer = AmqpTestClient.Over(client.Input, client.Output);
        await peer.SendMethodAsync(0, new ConnectionClose { ReplyCode = 200, ReplyText = "bye" }, deadline.Token);
        await peer.ExpectAsync<ConnectionCloseOk>(deadline.Token);
    }
}
