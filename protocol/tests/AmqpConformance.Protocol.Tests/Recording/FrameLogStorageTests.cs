using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.InteropServices;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Protocol.Tests.Recording;

/// <summary>The log's storage (entries in segments, payloads in shared chunks, records made on demand) against what a
/// list of records would say: order, sequence numbers, bytes, drops, concurrent readers, subscribers,
/// allocation.</summary>
public sealed class FrameLogStorageTests
{
    /// <summary>More than four segments' worth (2,048 entries each), and payload chunks (64 KiB) filled many
    /// times.</summary>
    private const int ManyFrames = 9000;

    /// <summary>A method frame payload that names its sequence number: basic.publish ids, the number, then filler of a
    /// length that varies with it (some over 1 KiB, which get an array of their own).</summary>
    private static byte[] MethodPayload(long sequence)
    {
        int length = sequence % 97 == 0 ? 1500 + (int)(sequence % 300) : 12 + (int)(sequence % 60);
        var payload = new byte[length];
        BinaryPrimitives.WriteUInt16BigEndian(payload, 60);
        BinaryPrimitives.WriteUInt16BigEndian(payload.AsSpan(2), 40);
        BinaryPrimitives.WriteInt64BigEndian(payload.AsSpan(4), sequence);
        for (int i = 12; i < length; i++)
            payload[i] = (byte)(sequence + i);
        return payload;
    }

    private static byte[] BodyPayload(long sequence) =>
        [.. Enumerable.Range(0, 40).Select(i => (byte)(i * 7 + sequence))];

    /// <summary>Records frame <paramref name="sequence"/>: two method frames, then a body frame, over and
    /// over.</summary>
    private static long RecordOne(FrameLog log, long sequence)
    {
        bool body = sequence % 3 == 2;
        byte[] payload = body ? BodyPayload(sequence) : MethodPayload(sequence);
        return log.Record(
            FrameDirection.Received,
            8 + sequence * 100,
            (byte)(body ? FrameType.Body : FrameType.Method),
            1,
            payload.Length,
            new ReadOnlySequence<byte>(payload)
        );
    }

    private static void AssertFrame(FrameRecord record, bool capturedBodies = false)
    {
        long seq = record.Sequence;
        Assert.Equal(8 + seq * 100, record.WireOffset);
        if (seq % 3 == 2)
        {
            Assert.Equal(FrameType.Body, record.Type);
            Assert.Equal(FrameDigest.Compute(BodyPayload(seq)), record.PayloadDigest);
            if (capturedBodies)
                Assert.Equal(BodyPayload(seq), record.Payload!.Value.ToArray());
            else
                Assert.Null(record.Payload);
        }
        else
        {
            Assert.Equal(FrameType.Method, record.Type);
            Assert.Equal("basic.publish", record.MethodName);
            Assert.Equal((60, 40), (record.ClassId, record.MethodId));
            Assert.Equal(MethodPayload(seq), record.Payload!.Value.ToArray());
            Assert.Null(record.PayloadDigest);
        }
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Frames_over_many_segments_and_chunks_come_back_in_order_with_their_bytes(bool captureBodies)
    {
        var log = new FrameLog(options: new FrameLogOptions { CaptureBodies = captureBodies });
        for (long i = 0; i < ManyFrames; i++)
            Assert.Equal(i, RecordOne(log, i));

        var held = log.Snapshot();
        Assert.Equal(ManyFrames, held.Count);
        Assert.Equal(ManyFrames, log.Count);
        for (int i = 0; i < held.Count; i++)
        {
            Assert.Equal(i, held[i].Sequence);
            AssertFrame(held[i], captureBodies);
        }
    }

    [Fact]
    public void A_bound_drops_across_segments_and_the_held_frames_keep_their_bytes()
    {
        var log = new FrameLog(options: new FrameLogOptions { MaxRetainedFrames = 3000 });
        var earlier = new List<IReadOnlyList<FrameRecord>>();
        for (long i = 0; i < 5 * ManyFrames; i++)
        {
            RecordOne(log, i);
            if (i % 7001 == 0)
                earlier.Add(log.Snapshot()); // chunks these records use must never be reused
        }
        // Records handed out before their frames were dropped still read their own bytes.
        Assert.All(earlier.SelectMany(s => s), f => AssertFrame(f));

        var held = log.Snapshot();
        Assert.InRange(held.Count, 3000, 5999);
        Assert.Equal(5 * ManyFrames, log.NextSequence);
        Assert.Equal(log.NextSequence - held.Count, log.DroppedFrames);
        for (int i = 0; i < held.Count; i++)
        {
            Assert.Equal(log.DroppedFrames + i, held[i].Sequence);
            AssertFrame(held[i]);
        }
    }

    [Fact]
    public void Facts_agree_with_records_and_read_on_from_where_they_stopped()
    {
        var log = new FrameLog(options: new FrameLogOptions { MaxRetainedFrames = 2500 });
        for (long i = 0; i < ManyFrames; i++)
            RecordOne(log, i);
        var records = log.Snapshot();
        var facts = new List<FrameFacts>();
        var batch = new FrameFacts[1000];
        for (long next = 0; log.CopyFacts(next, batch) is var n and > 0; next = batch[n - 1].Sequence + 1)
            facts.AddRange(batch[..n]);

        Assert.Equal(records.Count, facts.Count);
        for (int i = 0; i < records.Count; i++)
        {
            var (r, f) = (records[i], facts[i]);
            Assert.Equal(
                (r.Sequence, r.Direction, r.WireOffset, r.Timestamp, r.Type, r.Channel, r.Size),
                (f.Sequence, f.Direction, f.WireOffset, f.Timestamp, f.Type, f.Channel, f.Size)
            );
            Assert.Equal(
                (
                    r.ClassId,
                    r.MethodId,
                    r.DeclaredBodySize,
                    r.PayloadDigest,
                    r.Payload?.Length ?? -1,
                    r.FrameEndValid,
                    r.WireLength
                ),
                (
                    f.ClassId,
                    f.MethodId,
                    f.DeclaredBodySize,
                    f.PayloadDigest,
                    f.PayloadLength,
                    f.FrameEndValid,
                    f.WireLength
                )
            );
        }
    }

    [Fact]
    public void Snapshots_taken_while_another_thread_records_are_consistent_prefixes()
    {
        var log = new FrameLog(options: new FrameLogOptions { MaxRetainedFrames = 4000 });
        const int Total = 60_000;
        var writer = Task.Run(() =>
        {
            for (long i = 0; i < Total; i++)
                RecordOne(log, i);
        });
        long lastEnd = 0;
        int snapshots = 0;
        while (!writer.IsCompleted || snapshots == 0)
        {
            var held = log.Snapshot();
            snapshots++;
            if (held.Count == 0)
                continue;
            for (int i = 0; i < held.Count; i++)
            {
                Assert.Equal(held[0].Sequence + i, held[i].Sequence);
                AssertFrame(held[i]);
            }
            long end = held[^1].Sequence + 1;
            Assert.True(end >= lastEnd, $"a later snapshot ended earlier ({end} < {lastEnd})");
            lastEnd = end;
        }
        writer.GetAwaiter().GetResult();
        Assert.Equal(Total, log.NextSequence);
    }

    [Fact]
    public void Subscribers_see_each_frame_once_in_order_whichever_way_it_was_appended()
    {
        var log = new FrameLog(options: new FrameLogOptions { MaxRetainedFrames = 1000 });
        var seen = new List<FrameRecord>();
        using (log.Subscribe(seen.Add))
        {
            for (long i = 0; i < 5000; i++)
            {
                if (i % 10 == 9)
                    log.Append(seq => new FrameRecord
                    {
                        Sequence = seq,
                        Direction = FrameDirection.Sent,
                        WireOffset = 0,
                        Timestamp = TimeSpan.Zero,
                        Type = FrameType.Heartbeat,
                        Channel = 0,
                        Size = 0,
                    });
                else
                    RecordOne(log, i);
            }
        }
        RecordOne(log, 5000);

        Assert.Equal(Enumerable.Range(0, 5000).Select(i => (long)i), seen.Select(f => f.Sequence));
        Assert.All(seen.Where(f => f.Type != FrameType.Heartbeat), f => AssertFrame(f));
        Assert.Equal(5001, log.NextSequence);
    }

    [Fact]
    public void Body_digests_are_the_XXH3_values_however_the_payload_is_split()
    {
        var log = new FrameLog();
        byte[] abc = "abc"u8.ToArray();
        log.Record(FrameDirection.Received, 8, (byte)FrameType.Body, 1, 3, new ReadOnlySequence<byte>(abc));
        byte[] text = "Nobody inspects the spammish repetition"u8.ToArray();
        var first = new Segment(text.AsMemory(0, 5));
        var last = first.Then(text.AsMemory(5, 20)).Then(text.AsMemory(25));
        log.Record(
            FrameDirection.Received,
            19,
            (byte)FrameType.Body,
            1,
            text.Length,
            new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length)
        );

        var held = log.Snapshot();
        Assert.Equal(0x78AF5F94892F3950UL, held[0].PayloadDigest);
        Assert.Equal(0x6CB00603B5CC47E9UL, held[1].PayloadDigest);
        Assert.All(held, f => Assert.Null(f.Payload));
    }

    [Fact]
    public void Recording_a_frame_allocates_nothing_once_segments_and_chunks_are_recycled()
    {
        var log = new FrameLog(options: new FrameLogOptions { MaxRetainedFrames = 5000 });
        byte[] method = MethodPayload(1),
            body = new byte[4000];
        var methodSeq = new ReadOnlySequence<byte>(method);
        var bodySeq = new ReadOnlySequence<byte>(body);
        const int PerRound = 30_000;
        long least = long.MaxValue;
        for (int round = 0; round < 5 && least > 0; round++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < PerRound; i++)
            {
                log.Record(FrameDirection.Received, i, (byte)FrameType.Method, 1, method.Length, methodSeq);
                log.Record(FrameDirection.Received, i, (byte)FrameType.Body, 1, body.Length, bodySeq);
            }
            least = Math.Min(least, GC.GetAllocatedBytesForCurrentThread() - before);
        }
        // Tiered compilation may allocate in an early round; the least round shows the steady state.
        Assert.True(least / (2.0 * PerRound) <= 1.0, $"{least} bytes for {2 * PerRound} frames");
    }

    /// <summary>A publisher's repeated basic.publish and header are kept once even though the broker's basic.ack
    /// frames, each with another delivery tag, come between them: repeats are looked for per direction.</summary>
    [Fact]
    public void Repeated_payloads_are_shared_even_while_the_other_direction_sends_changing_ones()
    {
        var log = new FrameLog();
        byte[] publish = MethodPayload(7),
            header = [0, 60, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0];
        for (int i = 0; i < 500; i++)
        {
            log.Record(
                FrameDirection.Received,
                0,
                (byte)FrameType.Method,
                1,
                publish.Length,
                new ReadOnlySequence<byte>(publish)
            );
            log.Record(
                FrameDirection.Received,
                0,
                (byte)FrameType.Header,
                1,
                header.Length,
                new ReadOnlySequence<byte>(header)
            );
            byte[] ack = new byte[13];
            BinaryPrimitives.WriteUInt16BigEndian(ack, 60);
            BinaryPrimitives.WriteUInt16BigEndian(ack.AsSpan(2), 80);
            BinaryPrimitives.WriteUInt64BigEndian(ack.AsSpan(4), (ulong)i + 1);
            log.Record(FrameDirection.Sent, 0, (byte)FrameType.Method, 1, ack.Length, new ReadOnlySequence<byte>(ack));
            // A delivery's header going out, its body size changing every time.
            byte[] sentHeader = [.. header];
            BinaryPrimitives.WriteUInt64BigEndian(sentHeader.AsSpan(4), (ulong)i);
            log.Record(
                FrameDirection.Sent,
                0,
                (byte)FrameType.Header,
                1,
                sentHeader.Length,
                new ReadOnlySequence<byte>(sentHeader)
            );
        }

        var held = log.Snapshot();
        foreach (var type in new[] { FrameType.Method, FrameType.Header })
        {
            var received = held.Where(f => f.Direction == FrameDirection.Received && f.Type == type)
                .Select(f => f.Payload!.Value)
                .ToList();
            Assert.Equal(500, received.Count);
            Assert.Single(
                received.Select(p => (MemoryMarshal.TryGetArray(p, out var a) ? a.Array : null, a.Offset)).Distinct()
            );
        }
        var acks = held.Where(f => f.Direction == FrameDirection.Sent && f.Type == FrameType.Method).ToList();
        Assert.Equal(
            Enumerable.Range(1, 500).Select(i => (ulong)i),
            acks.Select(f => BinaryPrimitives.ReadUInt64BigEndian(f.Payload!.Value.Span[4..]))
        );
    }

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(ReadOnlyMemory<byte> memory) => Memory = memory;

        public Segment Then(ReadOnlyMemory<byte> memory)
        {
            var next = new Segment(memory) { RunningIndex = RunningIndex + Memory.Length };
            Next = next;
            return next;
        }
    }
}
