using System.Buffers;
using System.Buffers.Binary;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Protocol.Tests.Recording;

/// <summary><see cref="FrameLog.BeginBatch"/>: frames recorded through a batch are stored exactly as
/// <see cref="FrameLog.Record(FrameDirection, long, TimeSpan, byte, ushort, int, in ReadOnlySequence{byte}, bool, bool)"/>
/// stores them, a batch's frames stay together in sequence order whatever another thread records meanwhile, and while
/// anyone is subscribed a batch takes no lock and every subscriber still gets every frame.</summary>
public sealed class FrameLogBatchTests
{
    /// <summary>Frame <paramref name="i"/> of a mix of method, header, body and refused frames, its payload naming
    /// it.</summary>
    private static (FrameType Type, int Size, byte[] Payload, bool Present) FrameOf(int i)
    {
        var type = (i % 4) switch
        {
            0 => FrameType.Method,
            1 => FrameType.Header,
            _ => FrameType.Body,
        };
        int length = type == FrameType.Body ? (i % 5 == 0 ? 300 : 100) : 20 + i % 7;
        var payload = new byte[length];
        BinaryPrimitives.WriteUInt16BigEndian(payload, 60);
        BinaryPrimitives.WriteInt32BigEndian(payload.AsSpan(4), i);
        bool present = i % 97 != 0;
        return (type, present ? length : 1_000_000 + i, present ? payload : [], present);
    }

    private static long RecordThrough(
        FrameLog log,
        FrameLogBatch? batch,
        int i,
        FrameDirection direction = FrameDirection.Received
    )
    {
        var (type, size, payload, present) = FrameOf(i);
        var ticks = new TimeSpan(i / 3);
        return batch is { } b
            ? b.Record(
                direction,
                i * 1000L,
                ticks,
                (byte)type,
                1,
                size,
                new ReadOnlySequence<byte>(payload),
                present,
                frameEndValid: i % 11 != 0
            )
            : log.Record(
                direction,
                i * 1000L,
                ticks,
                (byte)type,
                1,
                size,
                new ReadOnlySequence<byte>(payload),
                present,
                frameEndValid: i % 11 != 0
            );
    }

    private static object Shape(FrameRecord f) =>
        (
            f.Sequence,
            f.Direction,
            f.WireOffset,
            f.Timestamp,
            f.Type,
            f.Channel,
            f.Size,
            f.ClassId,
            f.MethodId,
            f.DeclaredBodySize,
            f.PayloadDigest,
            f.FrameEndValid,
            f.Payload is { } p ? Convert.ToHexString(p.Span) : null
        );

    [Fact]
    public void A_batch_stores_every_frame_as_recording_it_alone_does()
    {
        var alone = new FrameLog();
        var batched = new FrameLog();
        for (int i = 0; i < 10_000; i++)
            RecordThrough(alone, null, i);
        for (int start = 0; start < 10_000; start += 700)
        {
            using var batch = batched.BeginBatch();
            Assert.True(batch.HoldsLock);
            for (int i = start; i < Math.Min(start + 700, 10_000); i++)
                Assert.Equal(i, RecordThrough(batched, batch, i));
        }

        Assert.Equal(alone.Snapshot().Select(Shape), batched.Snapshot().Select(Shape));
    }

    [Fact]
    public void A_batch_keeps_its_frames_together_while_another_thread_records()
    {
        var log = new FrameLog();
        const int Batches = 2000,
            PerBatch = 20;
        using var done = new CancellationTokenSource();
        int others = 0;
        var other = Task.Run(() =>
        {
            // Bounded, so a main thread descheduled between batches cannot let the log grow without end.
            while (!done.IsCancellationRequested && others < 200_000)
                RecordThrough(log, null, others++, FrameDirection.Sent);
        });
        var batchStarts = new List<long>();
        for (int b = 0; b < Batches; b++)
        {
            using var batch = log.BeginBatch();
            long first = RecordThrough(log, batch, b * PerBatch);
            for (int i = 1; i < PerBatch; i++)
            {
                // Give the other thread time to record in the middle of the batch, had the batch not kept it out.
                if (i == PerBatch / 2)
                    Thread.SpinWait(200);
                Assert.Equal(first + i, RecordThrough(log, batch, b * PerBatch + i));
            }
            batchStarts.Add(first);
        }
        done.Cancel();
        other.GetAwaiter().GetResult();

        var held = log.Snapshot();
        Assert.Equal(Batches * PerBatch + others, held.Count);
        foreach (long first in batchStarts)
            Assert.All(held.Skip((int)first).Take(PerBatch), f => Assert.Equal(FrameDirection.Received, f.Direction));
    }

    [Fact]
    public void While_anyone_is_subscribed_a_batch_takes_no_lock_and_subscribers_get_every_frame()
    {
        var log = new FrameLog();
        var seen = new List<long>();
        using (log.Subscribe(f => seen.Add(f.Sequence)))
        {
            using var batch = log.BeginBatch();
            Assert.False(batch.HoldsLock);
            for (int i = 0; i < 100; i++)
                RecordThrough(log, batch, i);
            // A subscriber may read the log from another thread: nothing of it is held (bounded: a batch that held the
            // lock here would make this wait forever, not fail).
            var count = Task.Run(() => log.Count);
            Assert.True(
                count.Wait(TimeSpan.FromSeconds(30)),
                "another thread could not read the log while a batch ran with a subscriber"
            );
            Assert.Equal(100, count.Result);
        }
        Assert.Equal(Enumerable.Range(0, 100).Select(i => (long)i), seen);

        using (var batch = log.BeginBatch())
            Assert.True(batch.HoldsLock);
    }

    [Fact]
    public void A_default_batch_refuses_to_record()
    {
        var ex = Assert.Throws<InvalidOperationException>(() =>
            RecordThrough(new FrameLog(), default(FrameLogBatch), 1)
        );
        Assert.Contains("BeginBatch", ex.Message);
    }
}
