using System.IO.Pipelines;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.Protocol.Transport;

namespace AmqpConformance.FakeBroker.Tests.Recording;

/// <summary>The receive loop reads a frame that lies whole in one pipe segment straight from it, and one cut across
/// segments through the general reader: the log and the findings must not depend on which way a frame came.</summary>
public sealed class SegmentationRecordingTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(15);

    /// <summary>After the handshake (frame_max 4096) and channels 1 and 2: a 5000-byte publish (two body frames), a
    /// heartbeat, a publish on channel 2 interleaved into one on channel 1 (a strict-profile finding), an empty
    /// publish, and a body frame with a bad end octet (501, connection closed).</summary>
    private static byte[] Traffic()
    {
        byte[] big = [.. Enumerable.Range(0, 5000).Select(i => (byte)(i * 7 + 3))];
        byte[] interleaved = FrameBytes.Publish(1, "", "nowhere", "abcdef"u8, 4096);
        byte[] other = FrameBytes.Publish(2, "", "nowhere", "xyz"u8, 4096);
        int methodAndHeader = interleaved.Length - (6 + 8);
        return FrameBytes.Concat(
            FrameBytes.Publish(1, "", "nowhere", big, 4096),
            FrameBytes.Heartbeat(),
            interleaved[..methodAndHeader],
            other,
            interleaved[methodAndHeader..],
            FrameBytes.Publish(1, "amq.direct", "k", [], 4096),
            MalformedFrames.WithFrameEnd(FrameBytes.Body(1, "oops"u8), 0x00)
        );
    }

    /// <summary>Serves one connection, sends <see cref="Traffic"/> in pieces of <paramref name="chunk"/> bytes (each
    /// flushed on its own) through a pipe of <paramref name="segmentSize"/>-byte segments, waits for the broker's
    /// close, and returns the log.</summary>
    private static async Task<FrameLog> RecordAsync(int chunk, int segmentSize)
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var broker = FakeAmqpBroker.CreateWithoutListener(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, FrameMax = 4096 }
        );
        var toBroker = new Pipe(new PipeOptions(minimumSegmentSize: segmentSize));
        var fromBroker = new Pipe();
        var connection = broker.Serve(new DuplexPipe(toBroker.Reader, fromBroker.Writer));
        await using var client = AmqpTestClient.Over(fromBroker.Reader, toBroker.Writer);
        await client.HandshakeAsync(new TestPeerHandshake { FrameMax = 4096 }, cancellationToken: cts.Token);
        await client.OpenChannelAsync(1, cts.Token);
        await client.OpenChannelAsync(2, cts.Token);
        byte[] traffic = Traffic();
        for (int at = 0; at < traffic.Length; at += chunk)
            await client.SendBytesAsync(traffic.AsMemory(at, Math.Min(chunk, traffic.Length - at)), cts.Token);
        var close = await client.ExpectAsync<ConnectionClose>(cts.Token);
        Assert.Equal(ReplyCodes.FrameError, close.ReplyCode);
        return connection.Log;
    }

    [Theory]
    [InlineData(1, 16)]
    [InlineData(7, 16)]
    [InlineData(100, 64)]
    [InlineData(4099, 4096)]
    public async Task A_stream_cut_across_segments_is_recorded_and_judged_as_the_same_stream_in_one_piece(
        int chunk,
        int segmentSize
    )
    {
        FrameLog whole = await RecordAsync(int.MaxValue, 1 << 16);
        FrameLog cut = await RecordAsync(chunk, segmentSize);

        var expected = whole.Snapshot();
        var actual = cut.Snapshot();
        Assert.Contains(expected, f => !f.FrameEndValid);
        Assert.Equal(expected.Count, actual.Count);
        for (int i = 0; i < expected.Count; i++)
        {
            var (e, a) = (expected[i], actual[i]);
            Assert.Equal(
                (
                    e.Sequence,
                    e.Direction,
                    e.WireOffset,
                    e.Type,
                    e.Channel,
                    e.Size,
                    e.ClassId,
                    e.MethodId,
                    e.DeclaredBodySize,
                    e.PayloadDigest,
                    e.FrameEndValid
                ),
                (
                    a.Sequence,
                    a.Direction,
                    a.WireOffset,
                    a.Type,
                    a.Channel,
                    a.Size,
                    a.ClassId,
                    a.MethodId,
                    a.DeclaredBodySize,
                    a.PayloadDigest,
                    a.FrameEndValid
                )
            );
            Assert.Equal(e.Payload?.ToArray(), a.Payload?.ToArray());
        }
        Assert.Equal(["content-interleaved", "bad-frame-end"], whole.Findings().Select(f => f.Rule));
        Assert.Equal(whole.Findings(), cut.Findings());
    }
}
