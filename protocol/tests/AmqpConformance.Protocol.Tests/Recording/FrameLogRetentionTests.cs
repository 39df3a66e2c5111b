using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Protocol.Tests.Recording;

/// <summary><see cref="FrameLogOptions.MaxRetainedFrames"/> bounds what the log holds, never what it records.</summary>
public sealed class FrameLogRetentionTests
{
    private static FrameRecord Heartbeat(long sequence) =>
        new()
        {
            Sequence = sequence,
            Direction = FrameDirection.Received,
            WireOffset = 8 + sequence * 8,
            Timestamp = TimeSpan.Zero,
            Type = FrameType.Heartbeat,
            Channel = 0,
            Size = 0,
        };

    [Fact]
    public void Without_a_bound_every_frame_is_held()
    {
        var log = new FrameLog();
        for (int i = 0; i < 1000; i++)
            log.Append(Heartbeat);
        Assert.Equal(1000, log.Count);
        Assert.Equal(0, log.DroppedFrames);
        Assert.Equal(Enumerable.Range(0, 1000).Select(i => (long)i), log.Snapshot().Select(f => f.Sequence));
    }

    [Fact]
    public void With_a_bound_the_newest_frames_are_held_and_sequence_numbers_keep_counting()
    {
        var log = new FrameLog(options: new FrameLogOptions { MaxRetainedFrames = 10 });
        var seen = new List<long>();
        using var subscription = log.Subscribe(f => seen.Add(f.Sequence));
        for (int i = 0; i < 1000; i++)
            log.Append(Heartbeat(log.NextSequence));
        log.Append(0, static (seq, _) => Heartbeat(seq));

        var held = log.Snapshot();
        Assert.InRange(held.Count, 10, 19);
        Assert.Equal(1001, log.NextSequence);
        Assert.Equal(1001 - held.Count, log.DroppedFrames);
        Assert.Equal(held.Count, log.Count);
        Assert.Equal(
            Enumerable.Range((int)log.DroppedFrames, held.Count).Select(i => (long)i),
            held.Select(f => f.Sequence)
        );
        // Subscribers (the live export) still saw every frame, in order.
        Assert.Equal(Enumerable.Range(0, 1001).Select(i => (long)i), seen);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    public void A_bound_must_be_positive(int bound) =>
        Assert.Throws<ArgumentOutOfRangeException>(() => new FrameLogOptions { MaxRetainedFrames = bound });

    /// <summary>A drop that leaves only frames without a kept payload (body frames, heartbeats) must not let go of the
    /// payload chunk being filled: the next method frame's payload would go into it under the released index, and the
    /// snapshot would throw ArgumentOutOfRangeException (<see cref="FrameLogOffsetsAndTimesTests"/> reaches this
    /// too).</summary>
    [Fact]
    public void A_payload_kept_after_a_drop_that_released_every_payload_is_still_readable()
    {
        var log = new FrameLog(options: new FrameLogOptions { MaxRetainedFrames = 3 });
        byte[] publish = [0, 60, 0, 40, 0, 0, 1, 97, 0, 1, 98, 0];
        log.Record(
            FrameDirection.Received,
            8,
            (byte)FrameType.Method,
            1,
            publish.Length,
            new System.Buffers.ReadOnlySequence<byte>(publish)
        );
        for (int i = 0; i < 10; i++)
            log.Record(
                FrameDirection.Received,
                100 + i * 20,
                (byte)FrameType.Body,
                1,
                4,
                new System.Buffers.ReadOnlySequence<byte>([1, 2, 3, (byte)i])
            );
        log.Record(
            FrameDirection.Received,
            400,
            (byte)FrameType.Method,
            1,
            publish.Length,
            new System.Buffers.ReadOnlySequence<byte>(publish)
        );

        var last = log.Snapshot()[^1];
        Assert.Equal("basic.publish", last.MethodName);
        Assert.Equal(publish, last.Payload!.Value.ToArray());
    }
}
