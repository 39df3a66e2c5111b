using AmqpConformance.Harness.Client;
using AmqpConformance.Harness.Tests.Writers.Support;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.TestSupport.Peers;
using ClientHandshake = AmqpConformance.Harness.Client.ClientHandshake;

namespace AmqpConformance.Harness.Tests.Client;

public sealed class ClientHandshakeTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task OpenChannelsAsync_opens_every_channel_in_one_flush_and_reads_every_reply(bool confirms)
    {
        using var deadline = new CancellationTokenSource(WriterTestKit.TestTimeout);
        await using var broker = FakeBroker.FakeBroker.CreateWithoutListener();
        var (client, server) = DuplexPipe.CreatePair();
        var connection = broker.Serve(server);
        await ClientHandshake.OpenAsync(client, new HarnessClientOptions(), deadline.Token);

        await ClientHandshake.OpenChannelsAsync(client, [1, 2, 5], confirms, deadline.Token);

        var frames = connection.Log.Snapshot();
        var opens = frames.Where(f => f.Direction == FrameDirection.Received && f.MethodName == "channel.open").ToList();
        Assert.Equal([1, 2, 5], opens.Select(f => (int)f.Channel));
        // One flush: every request reached the broker before its first reply went out.
        var firstReply = frames.First(f => f.Direction == FrameDirection.Sent && f.MethodName == "channel.open-ok");
        Assert.All(opens, f => Assert.True(f.Sequence < firstReply.Sequence, $"channel.open on {f.Channel} came after a reply"));
        Assert.Equal(3, frames.Count(f => f.Direction == FrameDirection.Sent && f.MethodName == "channel.open-ok"));
        Assert.Equal(confirms ? 3 : 0, frames.Count(f => f.Direction == FrameDirection.Sent && f.MethodName == "confirm.select-ok"));
        Assert.Empty(connection.Findings);

        // Every reply was read: the next thing on the input is the answer to what is sent next.
        var peer = AmqpTestClient.Over(client.Input, client.Output);
        await peer.SendMethodAsync(0, new ConnectionClose { ReplyCode = 200, ReplyText = "bye" }, deadline.Token);
        await peer.ExpectAsync<ConnectionCloseOk>(deadline.Token);
    }
}
