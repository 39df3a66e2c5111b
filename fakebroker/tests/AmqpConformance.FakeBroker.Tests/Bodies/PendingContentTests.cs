using System.Buffers;
using System.Runtime.InteropServices;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Bodies;

/// <summary><see cref="PendingContent"/>: a small body that comes whole in one body frame is taken as it lies in the
/// receive buffer and copied only if somebody keeps it (once, into the connection's slab); every other body is gathered
/// into a pooled buffer as before.</summary>
public sealed class PendingContentTests
{
    private static PendingContent Started(long bodySize)
    {
        var content = new PendingContent().Start(new BasicPublish { RoutingKey = "q" }, 0);
        content.SetHeader(new ContentHeader((ulong)bodySize), []);
        return content;
    }

    private static byte[] Counting(int length) => [.. Enumerable.Range(0, length).Select(i => (byte)(i * 31 + 7))];

    [Fact]
    public void A_whole_small_body_in_several_segments_is_kept_once_in_the_slab_with_its_bytes()
    {
        byte[] body = Counting(3000);
        var frame = Wire.Segmented(body[..1000], body[1000..2999], body[2999..]);
        var content = Started(body.Length);

        Assert.True(content.TryTakeWhole(frame));
        Assert.True(content.IsComplete);
        var slab = new BodySlab();
        var kept = content.TakeBody(keep: true, poolable: true, slab, out var storage);

        Assert.Null(storage);
        Assert.Equal(body, kept.ToArray());
        Assert.Equal(1, slab.SlabsStarted);
        Assert.True(
            MemoryMarshal.TryGetArray(kept, out ArraySegment<byte> backing)
                && backing.Array!.Length == BodySlab.FirstSlabLength,
            "the kept body is not a slice of the slab"
        );
    }

    [Fact]
    public void A_whole_small_body_nobody_keeps_is_never_copied_and_the_next_command_starts_clean()
    {
        byte[] body = Counting(256);
        var content = Started(body.Length);
        Assert.True(content.TryTakeWhole(new ReadOnlySequence<byte>(body)));
        Assert.True(content.TakeBody(keep: false, poolable: false, slab: null, out _).IsEmpty);

        // The same instance assembles the next command from frames, as a channel reuses it.
        content.Start(new BasicPublish(), 1);
        content.SetHeader(new ContentHeader(10), []);
        content.Append(new ReadOnlySequence<byte>(body, 0, 4));
        content.Append(new ReadOnlySequence<byte>(body, 4, 6));
        Assert.True(content.IsComplete);
        Assert.Equal(body[..10], content.TakeBody(keep: true, poolable: false, new BodySlab(), out _).ToArray());
    }

    [Theory]
    [InlineData(300, 299)] // less than declared: more frames to come
    [InlineData(300, 301)] // more than declared: an overrun, counted by Append
    [InlineData(BodySlab.MaxBodyLength + 1, BodySlab.MaxBodyLength + 1)] // too large for a slab
    public void Any_other_first_frame_is_left_to_Append(int declared, int carried)
    {
        var content = Started(declared);
        var frame = new ReadOnlySequence<byte>(Counting(carried));
        Assert.False(content.TryTakeWhole(frame));
        Assert.Equal(0, content.Received);
        content.Append(frame);
        Assert.Equal(carried, content.Received);
    }

    [Fact]
    public void A_second_frame_is_never_taken_whole()
    {
        var content = Started(200);
        content.Append(new ReadOnlySequence<byte>(Counting(100)));
        Assert.False(content.TryTakeWhole(new ReadOnlySequence<byte>(Counting(200))));
    }
}
