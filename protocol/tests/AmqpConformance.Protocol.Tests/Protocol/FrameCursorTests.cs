using System.Buffers;
using AmqpConformance.Protocol;
using static AmqpConformance.TestSupport.Wire;

namespace AmqpConformance.Protocol.Tests;

/// <summary><see cref="FrameCursor"/> reads frames lying whole in a segment from that segment and the rest through
/// <see cref="FrameReader"/>; whichever way, every step must give what <see cref="FrameReader"/> alone gives.</summary>
public class FrameCursorTests
{
    private const long MaxPayload = 4096 - 8;

    /// <summary>Method, header, body, heartbeat; then a body with a bad end octet, a good heartbeat, and a header
    /// claiming more than <see cref="MaxPayload"/> (which stops reading).</summary>
    private static byte[] Wire() =>
        [
            .. Capture(w =>
            {
                w.WriteMethodFrame(1, new BasicPublish { RoutingKey = "q" });
                w.WriteHeaderFrame(1, new ContentHeader(300));
                FrameFormat.WriteBodyFrames(w, 1, Enumerable.Range(0, 300).Select(i => (byte)i).ToArray(), 4096);
                w.WriteHeartbeat();
            }),
            .. Hex("03 0002 00000003 616263 00"),
            .. Hex("08 0000 00000000 CE"),
            .. Hex("02 0001 00001000 0000"),
        ];

    private sealed record Step(
        FrameReadStatus Status,
        byte Type,
        ushort Channel,
        long ClaimedSize,
        string Payload,
        byte End,
        long Remaining
    );

    private static List<Step> General(ReadOnlySequence<byte> buffer)
    {
        var steps = new List<Step>();
        while (true)
        {
            var status = FrameReader.TryReadFrame(ref buffer, MaxPayload, out var frame);
            steps.Add(
                new Step(
                    status,
                    frame.TypeOctet,
                    frame.Channel,
                    frame.ClaimedSize,
                    ToHex(frame.Payload.ToArray()),
                    frame.EndOctet,
                    buffer.Length
                )
            );
            if (status is FrameReadStatus.NeedMoreData or FrameReadStatus.PayloadTooLarge)
                return steps;
        }
    }

    private static List<Step> Cursor(ReadOnlySequence<byte> buffer)
    {
        var steps = new List<Step>();
        var cursor = new FrameCursor(buffer);
        while (true)
        {
            var status = cursor.TryRead(MaxPayload, out var frame);
            steps.Add(
                new Step(
                    status,
                    frame.TypeOctet,
                    frame.Channel,
                    frame.ClaimedSize,
                    ToHex(frame.Payload.ToArray()),
                    frame.EndOctet,
                    cursor.Remaining.Length
                )
            );
            if (status is FrameReadStatus.NeedMoreData or FrameReadStatus.PayloadTooLarge)
                return steps;
        }
    }

    [Fact]
    public void One_array_gives_what_the_general_reader_gives()
    {
        byte[] wire = Wire();
        var expected = General(new ReadOnlySequence<byte>(wire));
        Assert.Equal(
            [
                FrameReadStatus.Frame,
                FrameReadStatus.Frame,
                FrameReadStatus.Frame,
                FrameReadStatus.Frame,
                FrameReadStatus.BadFrameEnd,
                FrameReadStatus.Frame,
                FrameReadStatus.PayloadTooLarge,
            ],
            expected.Select(s => s.Status)
        );
        Assert.Equal(expected, Cursor(new ReadOnlySequence<byte>(wire)));
    }

    [Fact]
    public void Every_split_into_two_segments_gives_what_the_general_reader_gives()
    {
        byte[] wire = Wire();
        var expected = General(new ReadOnlySequence<byte>(wire));
        for (int at = 0; at <= wire.Length; at++)
            Assert.Equal(expected, Cursor(Segmented(wire[..at], wire[at..])));
    }

    [Fact]
    public void Segments_whose_memory_is_not_an_array_give_what_the_general_reader_gives()
    {
        byte[] wire = Wire();
        var expected = General(new ReadOnlySequence<byte>(wire));
        for (int at = 1; at < wire.Length; at += 7)
        {
            var sequence = Segmented(new NotAnArray(wire[..at]).Memory, new NotAnArray(wire[at..]).Memory);
            Assert.False(System.Runtime.InteropServices.MemoryMarshal.TryGetArray(sequence.First, out _));
            Assert.Equal(expected, Cursor(sequence));
        }
    }

    /// <summary>Memory over an array that does not say so (as native or pinned memory would not).</summary>
    private sealed class NotAnArray(byte[] bytes) : MemoryManager<byte>
    {
        public override Span<byte> GetSpan() => bytes;

        public override MemoryHandle Pin(int elementIndex = 0) => throw new NotSupportedException();

        public override void Unpin() { }

        protected override void Dispose(bool disposing) { }
    }

    [Fact]
    public void Three_segments_and_one_byte_segments_give_what_the_general_reader_gives()
    {
        byte[] wire = Wire();
        var expected = General(new ReadOnlySequence<byte>(wire));
        Assert.Equal(expected, Cursor(OneBytePerSegment(wire)));
        for (int a = 0; a < wire.Length; a += 5)
        for (int b = a; b <= wire.Length; b += 7)
            Assert.Equal(expected, Cursor(Segmented(wire[..a], wire[a..b], wire[b..])));
    }

    [Fact]
    public void A_buffer_starting_inside_a_segment_and_every_cut_short_prefix_give_what_the_general_reader_gives()
    {
        byte[] wire = [.. Hex("AABBCC"), .. Wire()];
        var segmented = Segmented(wire[..40], wire[40..]);
        for (int length = 0; length <= wire.Length - 3; length++)
        {
            var buffer = segmented.Slice(3, length);
            Assert.Equal(General(buffer), Cursor(buffer));
        }
    }

    [Fact]
    public void Payloads_of_frames_read_from_a_segment_are_slices_of_that_segment()
    {
        byte[] wire = Wire();
        var buffer = Segmented(wire, []);
        var cursor = new FrameCursor(buffer);
        Assert.Equal(FrameReadStatus.Frame, cursor.TryRead(MaxPayload, out var method));
        Assert.True(method.Payload.IsSingleSegment);
        Assert.True(System.Runtime.InteropServices.MemoryMarshal.TryGetArray(method.Payload.First, out var array));
        Assert.Same(wire, array.Array);
        Assert.Equal(7, array.Offset);
        Assert.Equal(buffer.GetPosition(7 + method.Size), method.Payload.End);
    }
}
