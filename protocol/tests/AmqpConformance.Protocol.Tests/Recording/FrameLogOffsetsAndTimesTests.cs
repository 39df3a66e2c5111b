using System.Buffers;
using System.Runtime.CompilerServices;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Protocol.Tests.Recording;

/// <summary>The log keeps a frame's wire offset and timestamp beside its 12-byte entry, only where they are not
/// predictable (<see cref="FrameMarks"/>): whatever mix of directions, gaps, repeated and rising timestamps, repeated
/// and changing sizes, ready-made records, drops and reading positions, what comes back equals what went in.</summary>
public sealed class FrameLogOffsetsAndTimesTests
{
    [Fact]
    public void An_entry_is_12_bytes() => Assert.Equal(12, Unsafe.SizeOf<FrameEntry>());

    /// <summary>What one frame was recorded with.</summary>
    private readonly record struct Recorded(
        long Sequence,
        FrameDirection Direction,
        long WireOffset,
        long Ticks,
        FrameType Type,
        int Size
    );

    /// <summary>Records <paramref name="count"/> frames drawn from <paramref name="seed"/>: both directions, offsets
    /// that mostly follow on from the frame before in the same direction and sometimes jump, timestamps that repeat in
    /// runs and sometimes fall back (the log raises those), now and then a ready-made record; returns what the log
    /// should say, and into <paramref name="payloads"/> each recorded method and header frame's payload (three kinds of
    /// each, so the log's repeated-payload sharing both hits and misses).</summary>
    private static List<Recorded> RecordRandomFrames(
        FrameLog log,
        int seed,
        int count,
        List<byte[]?>? payloads = null,
        Action<List<Recorded>>? afterEach = null
    )
    {
        var random = new Random(seed);
        var expected = new List<Recorded>();
        long[] next = [8, 0];
        long ticks = 0,
            last = 0;
        for (int i = 0; i < count; i++)
        {
            var direction = random.Next(4) == 0 ? FrameDirection.Sent : FrameDirection.Received;
            int d = direction == FrameDirection.Sent ? 1 : 0;
            long offset = random.Next(50) == 0 ? next[d] + random.Next(1, 100) : next[d];
            if (random.Next(8) == 0)
                ticks += random.Next(1, 1000);
            long given = random.Next(40) == 0 ? ticks - random.Next(1, 50) : ticks;
            var type = random.Next(4) switch
            {
                0 => FrameType.Method,
                1 => FrameType.Body,
                2 => FrameType.Header,
                _ => FrameType.Heartbeat,
            };
            // Method and header payloads come in three kinds each (repeats, and not), up to 1000 bytes so the log's 64
            // KiB payload chunks fill every few dozen frames and a repeat can name a chunk older than the frame before
            // it.
            int kind = random.Next(3);
            byte[] payload = type switch
            {
                FrameType.Heartbeat => [],
                FrameType.Method => new byte[12 + kind * 494],
                FrameType.Header => new byte[14 + kind * 300],
                // Half the bodies the same size, so runs of equal sizes the entry cannot give (one kept, the rest
                // flagged as repeats) cross segment starts, drops and reading positions.
                _ => new byte[random.Next(2) == 0 ? 100 : random.Next(0, 300)],
            };
            if (type is FrameType.Method or FrameType.Header)
                (payload[1], payload[11]) = (60, (byte)kind);
            long sequence;
            long recordedTicks;
            int size = payload.Length;
            bool present = true;
            bool ready = random.Next(30) == 0;
            if (ready)
            {
                recordedTicks = given; // a ready-made record keeps its own timestamp
                sequence = log.Append(log.NextSequence, (seq, _) => new FrameRecord
                    {
                        Sequence = seq,
                        Direction = direction,
                        WireOffset = offset,
                        Timestamp = new TimeSpan(given),
                        Type = type,
                        Channel = 1,
                        Size = payload.Length,
                    }).Sequence;
                last = Math.Max(last, given);
            }
            else
            {
                recordedTicks = Math.Max(given, last);
                last = recordedTicks;
                // Now and then a size that is not the payload's: a frame refused from its header (no payload), or one
                // whose header claims other than what was kept.
                present = random.Next(60) != 0;
                size =
                    !present ? 1_000_000 + random.Next(1000)
                    : random.Next(60) == 0 ? payload.Length + 1
                    : payload.Length;
                sequence = log.Record(
                    direction,
                    offset,
                    new TimeSpan(given),
                    (byte)type,
                    1,
                    size,
                    new ReadOnlySequence<byte>(present ? payload : []),
                    payloadPresent: present
                );
            }
            expected.Add(new Recorded(sequence, direction, offset, recordedTicks, type, size));
            payloads?.Add(type is FrameType.Method or FrameType.Header && !ready && present ? payload : null);
            next[d] = offset + size + AmqpConstants.FrameOverhead;
            afterEach?.Invoke(expected);
        }
        return expected;
    }

    /// <summary>Asserts that the log's snapshot holds the newest of <paramref name="expected"/>, each as recorded, with
    /// the payloads in <paramref name="payloads"/>; returns the frames held.</summary>
    private static List<Recorded> AssertSnapshot(FrameLog log, List<Recorded> expected, List<byte[]?> payloads)
    {
        var held = expected.Skip((int)log.DroppedFrames).ToList();
        var snapshot = log.Snapshot();
        Assert.Equal(held.Count, snapshot.Count);
        for (int i = 0; i < held.Count; i++)
        {
            Assert.Equal(
                held[i],
                new Recorded(
                    snapshot[i].Sequence,
                    snapshot[i].Direction,
                    snapshot[i].WireOffset,
                    snapshot[i].Timestamp.Ticks,
                    snapshot[i].Type,
                    snapshot[i].Size
                )
            );
            if (payloads[(int)snapshot[i].Sequence] is { } payload)
                Assert.Equal(payload, snapshot[i].Payload!.Value.ToArray());
        }
        return held;
    }

    [Theory]
    [InlineData(1, null)]
    [InlineData(2, null)]
    [InlineData(3, 1000)]
    [InlineData(4, 5000)]
    [InlineData(5, 3)]
    public void Snapshot_and_facts_give_back_every_offset_and_timestamp(int seed, int? retained)
    {
        var log = new FrameLog(options: new FrameLogOptions { MaxRetainedFrames = retained });
        var payloads = new List<byte[]?>();
        // A small bound holds few frames at a time: look at them all along, not only at the end.
        Action<List<Recorded>>? check = retained is < 10 ? recorded => AssertSnapshot(log, recorded, payloads) : null;
        var expected = RecordRandomFrames(log, seed, 40_000, payloads, check);
        var held = AssertSnapshot(log, expected, payloads);

        var random = new Random(seed);
        var facts = new FrameFacts[1 + random.Next(5000)];
        for (int read = 0; read < 50; read++)
        {
            long from = log.DroppedFrames + random.Next(held.Count + 1);
            int asked = 1 + random.Next(facts.Length);
            int n = log.CopyFacts(from, facts.AsSpan(0, asked));
            Assert.Equal(Math.Min(log.NextSequence - from, asked), n);
            for (int i = 0; i < n; i++)
            {
                var f = facts[i];
                Assert.Equal(
                    held[(int)(from - log.DroppedFrames) + i],
                    new Recorded(f.Sequence, f.Direction, f.WireOffset, f.Timestamp.Ticks, f.Type, f.Size)
                );
            }
        }
    }

    /// <summary><see cref="FrameLog.Totals"/> adds up what the held frames' records say: count, where each direction's
    /// last held frame ends, payload bytes (ready-made records, refused frames, repeats sharing a payload, payloads
    /// with an array of their own, drops).</summary>
    [Theory]
    [InlineData(21, null)]
    [InlineData(22, 700)]
    [InlineData(23, 5)]
    public void Totals_add_up_what_the_held_frames_records_say(int seed, int? retained)
    {
        var log = new FrameLog(options: new FrameLogOptions { MaxRetainedFrames = retained });
        RecordRandomFrames(log, seed, 20_000);
        byte[] large = new byte[3000];
        large[1] = 60;
        for (int i = 0; i < 3; i++)
            log.Record(
                FrameDirection.Received,
                log.NextSequence * 10_000,
                (byte)FrameType.Method,
                1,
                large.Length,
                new ReadOnlySequence<byte>(large)
            );

        var held = log.Snapshot();
        var totals = log.Totals();
        Assert.Equal(held.Count, totals.HeldFrames);
        long EndOf(FrameDirection d) =>
            held.LastOrDefault(f => f.Direction == d) is { } f
                ? f.WireOffset + f.Size + AmqpConstants.FrameOverhead
                : 0;
        Assert.Equal(EndOf(FrameDirection.Received), totals.ReceivedThrough);
        Assert.Equal(EndOf(FrameDirection.Sent), totals.SentThrough);
        Assert.Equal(held.Sum(f => (long)(f.Payload?.Length ?? 0)), totals.PayloadBytes);
        Assert.True(totals.PayloadBytes >= 3 * 3000);
    }

    /// <summary>A reader that reads on in batches (as <c>ConnectionSummary</c> does) goes on from where its last read
    /// stopped (<see cref="FrameSegments.Park"/>): while frames are appended and dropped between its reads, and other
    /// reads jump back and forth in between, every batch still gives back exactly the frames recorded.</summary>
    [Theory]
    [InlineData(11, null)]
    [InlineData(12, 700)]
    [InlineData(13, 5)]
    public void Reading_on_in_batches_while_frames_come_and_go_gives_every_frame_as_recorded(int seed, int? retained)
    {
        var log = new FrameLog(options: new FrameLogOptions { MaxRetainedFrames = retained });
        var random = new Random(seed);
        var facts = new FrameFacts[300];
        long readOn = 0;
        int batches = 0,
            jumps = 0;
        void ReadAndCheck(List<Recorded> recorded, long from, int asked)
        {
            int n = log.CopyFacts(from, facts.AsSpan(0, asked));
            long start = Math.Max(from, log.DroppedFrames);
            Assert.Equal(Math.Min(log.NextSequence - start, asked), n);
            for (int i = 0; i < n; i++)
            {
                var f = facts[i];
                Assert.Equal(
                    recorded[(int)start + i],
                    new Recorded(f.Sequence, f.Direction, f.WireOffset, f.Timestamp.Ticks, f.Type, f.Size)
                );
            }
            if (from == readOn)
                readOn = start + n;
        }
        RecordRandomFrames(log, seed, 30_000, afterEach: recorded =>
        {
            if (random.Next(7) == 0)
            {
                ReadAndCheck(recorded, readOn, 1 + random.Next(facts.Length));
                batches++;
            }
            if (random.Next(40) == 0)
            {
                // Another reader, anywhere in what is held, including before and just after where the batches stand.
                long from =
                    random.Next(3) == 0
                        ? Math.Max(log.DroppedFrames, readOn - random.Next(3))
                        : log.DroppedFrames + random.Next((int)(log.NextSequence - log.DroppedFrames) + 1);
                ReadAndCheck(recorded, from, 1 + random.Next(facts.Length));
                jumps++;
            }
        });
        Assert.True(batches > 1000 && jumps > 100, $"{batches} batches, {jumps} jumps");
    }

    [Fact]
    public void A_subscriber_gets_the_offset_and_timestamp_each_frame_was_recorded_with()
    {
        var log = new FrameLog(options: new FrameLogOptions { MaxRetainedFrames = 100 });
        var seen = new List<Recorded>();
        using var subscription = log.Subscribe(f =>
            seen.Add(new Recorded(f.Sequence, f.Direction, f.WireOffset, f.Timestamp.Ticks, f.Type, f.Size))
        );
        var expected = RecordRandomFrames(log, 6, 3000);
        Assert.Equal(expected, seen);
    }
}
