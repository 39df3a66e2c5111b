using System.Buffers;

namespace AmqpConformance.Protocol.Recording;

/// <content>Recording a frame straight from the wire: the log reads what it stores from the payload itself, and makes
/// no object for it.</content>
public sealed partial class FrameLog
{
    /// <summary>Records one frame as it crossed the wire; returns its sequence number. Method and header frames keep
    /// their payload (copied into the log's memory) and ids (a header also its declared body size); body frames their
    /// digest (<see cref="FrameDigest"/>), and their payload too with <see cref="FrameLogOptions.CaptureBodies"/>;
    /// other frame types keep a non-empty payload. <paramref name="payloadPresent"/> is false for a frame refused from
    /// its header alone (too large): then only the header's fields are known.</summary>
    /// <remarks>Allocation-free except for a new 64 KiB payload chunk now and then (a payload equal to the last of its
    /// kind takes none), a 48 KiB segment array every 4096 frames and a 16 KiB size chunk every 4096 body frames (none
    /// once <see cref="FrameLogOptions.MaxRetainedFrames"/> recycles them), the marks of offsets and timestamps that
    /// were not predictable (a list entry each), payloads over 1 KiB (their own array), and, while anyone is
    /// subscribed, the record the subscribers get. Safe to call from any thread; frames appended concurrently get
    /// sequence numbers in the order they enter the log's lock.</remarks>
    public long Record(
        FrameDirection direction,
        long wireOffset,
        byte typeOctet,
        ushort channel,
        int size,
        in ReadOnlySequence<byte> payload,
        bool payloadPresent = true,
        bool frameEndValid = true
    ) => Record(direction, wireOffset, Elapsed, typeOctet, channel, size, payload, payloadPresent, frameEndValid);

    /// <summary>Records one frame as
    /// <see cref="Record(FrameDirection, long, byte, ushort, int, in ReadOnlySequence{byte}, bool, bool)"/> does, but
    /// with the time it crossed the wire given by the caller (<paramref name="timestamp"/>, on this log's clock: a
    /// value of <see cref="Elapsed"/> read earlier), so a reader that takes many frames from one read of its transport
    /// reads the clock once for all of them. A timestamp earlier than the frame recorded before it is raised to that
    /// frame's, so timestamps never go backwards in sequence order.</summary>
    public long Record(
        FrameDirection direction,
        long wireOffset,
        TimeSpan timestamp,
        byte typeOctet,
        ushort channel,
        int size,
        in ReadOnlySequence<byte> payload,
        bool payloadPresent = true,
        bool frameEndValid = true
    )
    {
        var entry = NewEntry(direction, typeOctet, channel, frameEndValid);
        bool keep = payloadPresent && Classify(ref entry, payload);
        long sequence;
        FrameRecord? record = null;
        Action<FrameRecord>[] subscribers;
        lock (_gate)
        {
            sequence = AppendHeld(ref entry, keep, wireOffset, timestamp, typeOctet, size, payload, out var extras);
            subscribers = _subscribers;
            if (subscribers.Length != 0)
            {
                _payloads.Expose();
                record = ToRecord(entry, sequence, extras);
            }
        }
        if (record is not null)
            foreach (var s in subscribers)
                s(record);
        return sequence;
    }

    /// <summary>Starts a run of <see cref="FrameLogBatch.Record"/> calls on this thread that take the log's lock once
    /// for all of them instead of once per frame (the lock cost more than anything else in recording a small frame).
    /// Until the batch is disposed, other threads that append to or read the log wait, so keep a batch to what one read
    /// of a transport brings and never await inside it. While anyone is subscribed (<see cref="Subscribe"/>) the batch
    /// takes no lock and each of its frames is recorded as
    /// <see cref="Record(FrameDirection, long, TimeSpan, byte, ushort, int, in ReadOnlySequence{byte}, bool, bool)"/>
    /// records it, so that subscribers are never called under the lock. Dispose it on the thread that began
    /// it.</summary>
    public FrameLogBatch BeginBatch()
    {
        EnterGate();
        if (_subscribers.Length == 0)
            return new FrameLogBatch(this, held: true);
        ExitGate();
        return new FrameLogBatch(this, held: false);
    }

    /// <summary>Records a frame as
    /// <see cref="Record(FrameDirection, long, TimeSpan, byte, ushort, int, in ReadOnlySequence{byte}, bool, bool)"/>
    /// does, from a batch that holds the lock and has no subscribers to call.</summary>
    internal long RecordHeld(
        FrameDirection direction,
        long wireOffset,
        TimeSpan timestamp,
        byte typeOctet,
        ushort channel,
        int size,
        in ReadOnlySequence<byte> payload,
        bool payloadPresent,
        bool frameEndValid
    )
    {
        var entry = NewEntry(direction, typeOctet, channel, frameEndValid);
        bool keep = payloadPresent && Classify(ref entry, payload);
        return AppendHeld(ref entry, keep, wireOffset, timestamp, typeOctet, size, payload, out _);
    }

    private static FrameEntry NewEntry(FrameDirection direction, byte typeOctet, ushort channel, bool frameEndValid) =>
        new()
        {
            Channel = channel,
            TypeOctet = typeOctet,
            Flags =
                (direction == FrameDirection.Sent ? FrameEntryFlags.Sent : 0)
                | (frameEndValid ? FrameEntryFlags.FrameEndValid : 0),
        };

    /// <summary>Stores the payload the entry keeps and appends the entry. Called under the lock.</summary>
    private long AppendHeld(
        ref FrameEntry entry,
        bool keep,
        long wireOffset,
        TimeSpan timestamp,
        byte typeOctet,
        int size,
        in ReadOnlySequence<byte> payload,
        out FrameExtras extras
    )
    {
        if (keep)
        {
            int kind = (FrameType)typeOctet switch
            {
                FrameType.Method => 0,
                FrameType.Header => 1,
                _ => -1,
            };
            if (kind >= 0 && entry.Has(FrameEntryFlags.Sent))
                kind += 2;
            entry.Slot = _payloads.Keep(payload, out bool ownArray, kind);
            entry.Flags |= FrameEntryFlags.Payload | (ownArray ? FrameEntryFlags.OwnArray : 0);
            if (!ownArray && PayloadStore.LengthOf(entry.Slot) != size)
                entry.Flags |= FrameEntryFlags.SizeKept;
        }
        long ticks = Math.Max(timestamp.Ticks, _lastTimestampTicks);
        _lastTimestampTicks = ticks;
        extras = new FrameExtras(wireOffset, ticks, size);
        long sequence = _frames.Add(entry, extras);
        DropOldestIfOverBound();
        return sequence;
    }

    /// <summary>Takes the log's lock (reentrant: a thread that holds it may take it again).</summary>
    private void EnterGate()
    {
#if NET9_0_OR_GREATER
        _gate.Enter();
#else
        Monitor.Enter(_gate);
#endif
    }

    /// <summary>Lets go of the log's lock once.</summary>
    internal void ExitGate()
    {
#if NET9_0_OR_GREATER
        _gate.Exit();
#else
        Monitor.Exit(_gate);
#endif
    }

    /// <summary>Computes a body frame's digest (outside the lock: it reads only the payload); returns whether to keep
    /// the payload: always for method and header frames, for body frames with
    /// <see cref="FrameLogOptions.CaptureBodies"/> (the digest is then read back from it), for others when not
    /// empty.</summary>
    private bool Classify(ref FrameEntry entry, in ReadOnlySequence<byte> payload)
    {
        switch ((FrameType)entry.TypeOctet)
        {
            case FrameType.Method:
            case FrameType.Header:
                return true;
            case FrameType.Body:
                if (Options.CaptureBodies)
                    return true;
                entry.Slot = FrameDigest.Compute(payload);
                entry.Flags |= FrameEntryFlags.Digest;
                return false;
            default:
                return entry.TypeOctet != (byte)FrameType.Heartbeat || !payload.IsEmpty;
        }
    }
}
