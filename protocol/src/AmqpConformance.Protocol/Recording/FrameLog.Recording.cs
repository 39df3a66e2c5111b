using System.Buffers;

namespace AmqpConformance.Protocol.Recording;

/// <content>Recording a frame straight from the wire: the log reads what it stores from the payload itself, and makes
/// no object for it.</content>
public sealed partial class FrameLog
{
    /// <summary>Records one frame as it crossed the wire; returns its sequence number. Method and header frames keep
    /// their payload (copied into the log's memory) and ids (a header also its declared body size); body frames their
    /// digest (<see cref="FrameDigest"/>), and their payload too with <see cref="FrameLogOptions.CaptureBodies"/>; other
    /// frame types keep a non-empty payload. <paramref name="payloadPresent"/> is false for a frame refused from its
    /// header alone (too large): then only the header's fields are known.</summary>
    /// <remarks>Allocation-free except for a new 64 KiB payload chunk now and then (a payload equal to the last of its kind
    /// takes none), a 48 KiB segment array every 4096 frames and a 16 KiB size chunk every 4096 body frames (none once
    /// <see cref="FrameLogOptions.MaxRetainedFrames"/> recycles them), the marks of offsets and timestamps that were not
    /// predictable (a list entry each), payloads over 1 KiB (their own array), and, while anyone is subscribed, the
    /// record the subscribers get. Safe to call from any thread; frames appended
    /// concurrently get sequence numbers in the order they enter the log's lock.</remarks>
    public long Record(FrameDirection direction, long wireOffset, byte typeOctet, ushort channel, int size,
        in ReadOnlySequence<byte> payload, bool payloadPresent = true, bool frameEndValid = true) =>
        Record(direction, wireOffset, Elapsed, typeOctet, channel, size, payload, payloadPresent, frameEndValid);

    /// <summary>Records one frame as <see cref="Record(FrameDirection, long, byte, ushort, int, in ReadOnlySequence{byte}, bool, bool)"/>
    /// does, but with the time it crossed the wire given by the caller (<paramref name="timestamp"/>, on this log's
    /// clock: a value of <see cref="Elapsed"/> read earlier), so a reader that takes many frames from one read of its
    /// transport reads the clock once for all of them. A timestamp earlier than the frame recorded before it is raised
    /// to that frame's, so timestamps never go backwards in sequence order.</summary>
    public long Record(FrameDirection direction, long wireOffset, TimeSpan timestamp, byte typeOctet, ushort channel, int size,
        in ReadOnlySequence<byte> payload, bool payloadPresent = true, bool frameEndValid = true)
    {
        var entry = new FrameEntry
        {
            Channel = channel,
            TypeOctet = typeOctet,
            Flags = (direction == FrameDirection.Sent ? FrameEntryFlags.Sent : 0) | (frameEndValid ? FrameEntryFlags.FrameEndValid : 0),
        };
        bool keep = payloadPresent && Classify(ref entry, payload);
        long sequence;
        FrameRecord? record = null;
        Action<FrameRecord>[] subscribers;
        lock (_gate)
        {
            if (keep)
            {
                int kind = (FrameType)typeOctet switch { FrameType.Method => 0, FrameType.Header => 1, _ => -1 };
                entry.Slot = _payloads.Keep(payload, out bool ownArray, kind);
                entry.Flags |= FrameEntryFlags.Payload | (ownArray ? FrameEntryFlags.OwnArray : 0);
                if (!ownArray && PayloadStore.LengthOf(entry.Slot) != size) entry.Flags |= FrameEntryFlags.SizeKept;
            }
            long ticks = Math.Max(timestamp.Ticks, _lastTimestampTicks);
            _lastTimestampTicks = ticks;
            var extras = new FrameExtras(wireOffset, ticks, size);
            sequence = _frames.Add(entry, extras);
            subscribers = _subscribers;
            if (subscribers.Length != 0)
            {
                _payloads.Expose();
                record = ToRecord(entry, sequence, extras);
            }
            DropOldestIfOverBound();
        }
        if (record is not null) foreach (var s in subscribers) s(record);
        return sequence;
    }

    /// <summary>Computes a body frame's digest (outside the lock: it reads only the payload); returns whether to keep
    /// the payload: always for method and header frames, for body frames with <see cref="FrameLogOptions.CaptureBodies"/>
    /// (the digest is then read back from it), for others when not empty.</summary>
    private bool Classify(ref FrameEntry entry, in ReadOnlySequence<byte> payload)
    {
        switch ((FrameType)entry.TypeOctet)
        {
            case FrameType.Method:
            case FrameType.Header:
                return true;
            case FrameType.Body:
                if (Options.CaptureBodies) return true;
                entry.Slot = FrameDigest.Compute(payload);
                entry.Flags |= FrameEntryFlags.Digest;
                return false;
            default:
                return entry.TypeOctet != (byte)FrameType.Heartbeat || !payload.IsEmpty;
        }
    }
}
