namespace AmqpConformance.Protocol.Recording;

/// <summary>
/// Append-only record of every frame of one connection, plus the broker's findings on it.
/// Thread-safe: appenders (the connection's reader and writer loops) and any number of readers; every reader sees a
/// consistent prefix of the frames, in sequence order.
/// </summary>
/// <remarks>Frames are stored as 12-byte <see cref="FrameEntry"/> structs in segment arrays and their payloads in the
/// log's <see cref="PayloadStore"/>: recording a frame with
/// <see cref="Record(FrameDirection, long, byte, ushort, int, in System.Buffers.ReadOnlySequence{byte}, bool, bool)"/>
/// creates no object. <see cref="FrameRecord"/> objects are made only when asked for: by <see cref="Snapshot"/>, and
/// for each frame while anyone is subscribed (<see cref="Subscribe"/>). <see cref="CopyFacts"/> reads frames without
/// making records. A record made for a frame refers to the log's payload memory, which is never written again while any
/// record can refer to it.</remarks>
public sealed partial class FrameLog
{
#if NET9_0_OR_GREATER
    private readonly Lock _gate = new();
#else
    private readonly object _gate = new();
#endif
    private long _lastTimestampTicks;
    private readonly FrameSegments _frames = new();
    private readonly PayloadStore _payloads = new();
    private readonly Dictionary<long, FrameRecord> _records = [];
    private readonly List<ProtocolFinding> _findings = [];
    private volatile Action<FrameRecord>[] _subscribers = [];
    private readonly long _startTimestamp;

    /// <summary>Creates an empty log.</summary>
    public FrameLog(long connectionId = 0, FrameLogOptions? options = null)
    {
        ConnectionId = connectionId;
        Options = options ?? FrameLogOptions.Default;
        _startTimestamp = Options.Clock.GetTimestamp();
        StartedAt = DateTimeOffset.UtcNow;
    }

    /// <summary>The broker's id for the connection, from 1; 0 when the log stands alone.</summary>
    public long ConnectionId { get; }

    /// <summary>What this log keeps.</summary>
    public FrameLogOptions Options { get; }

    /// <summary>Wall-clock time of the log's start; <see cref="FrameRecord.Timestamp"/> counts from here.</summary>
    public DateTimeOffset StartedAt { get; }

    /// <summary>Time elapsed since the log started, on the same clock as <see cref="FrameRecord.Timestamp"/>
    /// (<see cref="FrameLogOptions.Clock"/>).</summary>
    public TimeSpan Elapsed => Options.Clock.GetElapsedTime(_startTimestamp);

    /// <summary>How many frames the log holds: every frame recorded, unless
    /// <see cref="FrameLogOptions.MaxRetainedFrames"/> made it drop the oldest (<see cref="DroppedFrames"/> of
    /// them).</summary>
    public int Count
    {
        get
        {
            lock (_gate)
                return (int)_frames.Count;
        }
    }

    /// <summary>How many of the oldest frames were dropped from memory under
    /// <see cref="FrameLogOptions.MaxRetainedFrames"/> (always 0 without it): the first held frame has this sequence
    /// number.</summary>
    public long DroppedFrames
    {
        get
        {
            lock (_gate)
                return _frames.First;
        }
    }

    /// <summary>The sequence number the next appended frame gets (the number of frames recorded so far).</summary>
    public long NextSequence
    {
        get
        {
            lock (_gate)
                return _frames.Next;
        }
    }

    /// <summary>Appends a frame. Its <see cref="FrameRecord.Sequence"/> must equal <see cref="NextSequence"/>
    /// (use <see cref="Append(Func{long, FrameRecord})"/> to have it assigned). Subscribers are called on the
    /// appending thread, after the record is visible to readers.</summary>
    public void Append(FrameRecord record)
    {
        ArgumentNullException.ThrowIfNull(record);
        Append(record, static (seq, record) =>
            record.Sequence == seq
                ? record
                : throw new ArgumentException(
                    $"Record sequence {record.Sequence} is not the next one ({seq}).",
                    nameof(record)
                )
        );
    }

    /// <summary>Appends the record <paramref name="create"/> makes for the next sequence number; returns it.</summary>
    public FrameRecord Append(Func<long, FrameRecord> create)
    {
        ArgumentNullException.ThrowIfNull(create);
        return Append(create, static (seq, create) => create(seq));
    }

    /// <summary>Appends the record <paramref name="create"/> makes from <paramref name="state"/> and the next sequence
    /// number; returns it. The log keeps that very record (it is what <see cref="Snapshot"/> returns for it). Recording
    /// a wire frame with
    /// <see cref="Record(FrameDirection, long, byte, ushort, int, in System.Buffers.ReadOnlySequence{byte}, bool, bool)"/>
    /// is cheaper: it makes no record at all.</summary>
    public FrameRecord Append<TState>(TState state, Func<long, TState, FrameRecord> create)
    {
        ArgumentNullException.ThrowIfNull(create);
        FrameRecord record;
        Action<FrameRecord>[] subscribers;
        lock (_gate)
        {
            record = create(_frames.Next, state);
            _records.Add(_frames.Next, record);
            _lastTimestampTicks = Math.Max(_lastTimestampTicks, record.Timestamp.Ticks);
            _frames.Add(
                new FrameEntry
                {
                    Channel = record.Channel,
                    TypeOctet = (byte)record.Type,
                    Flags =
                        FrameEntryFlags.Record | (record.Direction == FrameDirection.Sent ? FrameEntryFlags.Sent : 0),
                },
                new FrameExtras(record.WireOffset, record.Timestamp.Ticks, record.Size)
            );
            DropOldestIfOverBound();
            subscribers = _subscribers;
        }
        foreach (var s in subscribers)
            s(record);
        return record;
    }

    /// <summary>Under <see cref="FrameLogOptions.MaxRetainedFrames"/> = n: once 2n frames are held, drops all but the
    /// newest n (one batch, so the cost per append stays constant), and the payload memory only they used. Called under
    /// the lock.</summary>
    private void DropOldestIfOverBound()
    {
        if (Options.MaxRetainedFrames is not { } max || _frames.Count < 2L * max)
            return;
        _frames.DropBefore(_frames.Next - max);
        // The smallest index a held frame names (a repeated payload names an older one than the frame before it); a
        // scan of the n held frames once per n appends.
        long keepFrom = _payloads.NextIndex;
        for (long seq = _frames.First; seq < _frames.Next; seq++)
        {
            ref readonly var entry = ref _frames[seq];
            if (entry.Has(FrameEntryFlags.Payload))
                keepFrom = Math.Min(keepFrom, PayloadStore.IndexOf(entry.Slot));
        }
        _payloads.ReleaseBefore(keepFrom);
        if (_records.Count > 0)
            foreach (long seq in _records.Keys.Where(k => k < _frames.First).ToList())
                _records.Remove(seq);
    }

    /// <summary>The record of a held frame. Called under the lock, after <see cref="PayloadStore.Expose"/>.</summary>
    private FrameRecord ToRecord(in FrameEntry entry, long sequence, in FrameExtras extras)
    {
        if (entry.Has(FrameEntryFlags.Record))
            return _records[sequence];
        ReadOnlyMemory<byte>? payload = null;
        if (entry.Has(FrameEntryFlags.Payload))
            payload = _payloads.Resolve(entry.Slot, entry.Has(FrameEntryFlags.OwnArray));
        var type = (FrameType)entry.TypeOctet;
        var read = new FrameEntryReading(entry, payload is { } p ? p.Span : default);
        return new FrameRecord
        {
            Sequence = sequence,
            Direction = entry.Direction,
            WireOffset = extras.WireOffset,
            Timestamp = new TimeSpan(extras.TimestampTicks),
            Type = type,
            Channel = entry.Channel,
            Size = extras.Size,
            ClassId = read.ClassId,
            MethodId = read.MethodId,
            MethodName = type == FrameType.Method ? MethodCodec.NameOf(read.ClassId, read.MethodId) : null,
            DeclaredBodySize = read.DeclaredBodySize,
            PayloadDigest = read.Digest,
            Payload = payload,
            FrameEndValid = entry.Has(FrameEntryFlags.FrameEndValid),
        };
    }

    /// <summary>Records a validation finding.</summary>
    public void AddFinding(ProtocolFinding finding)
    {
        ArgumentNullException.ThrowIfNull(finding);
        lock (_gate)
            _findings.Add(finding);
    }

    /// <summary>A copy of the frames held so far, in sequence order (all recorded frames unless
    /// <see cref="FrameLogOptions.MaxRetainedFrames"/> dropped the oldest). Makes one record per frame: callers that
    /// only need a frame's numbers can use <see cref="CopyFacts"/> instead.</summary>
    public IReadOnlyList<FrameRecord> Snapshot()
    {
        lock (_gate)
        {
            _payloads.Expose();
            var records = new FrameRecord[(int)_frames.Count];
            var walk = _frames.Walk(_frames.First);
            for (int i = 0; i < records.Length && walk.MoveNext(); i++)
                records[i] = ToRecord(walk.Entry, walk.Sequence, walk.Extras);
            return records;
        }
    }

    /// <summary>Copies the facts of the held frames from <paramref name="fromSequence"/> on (from the first held one if
    /// that was dropped) into <paramref name="destination"/>, in sequence order, without making records; returns how
    /// many it copied (fewer than the span holds once the newest frame is reached). Call again from the last copied
    /// sequence + 1 to read on.</summary>
    public int CopyFacts(long fromSequence, Span<FrameFacts> destination)
    {
        lock (_gate)
        {
            var walk = _frames.Walk(fromSequence);
            int n = 0;
            while (n < destination.Length && walk.MoveNext())
                destination[n++] = Facts(walk.Entry, walk.Sequence, walk.Extras);
            _frames.Park(walk);
            return n;
        }
    }

    /// <summary>What the held frames add up to (<see cref="FrameLogTotals"/>), read from the log's columns without
    /// making a record or a <see cref="FrameFacts"/> per frame: several times cheaper than adding up
    /// <see cref="CopyFacts"/>, for a reader that needs only sizes (a connection's summary when it ends).</summary>
    public FrameLogTotals Totals()
    {
        lock (_gate)
        {
            long received = 0,
                sent = 0,
                payloadBytes = 0;
            var walk = _frames.Walk(_frames.First);
            while (walk.MoveNext())
            {
                ref readonly var entry = ref walk.Entry;
                var extras = walk.Extras;
                long end = extras.WireOffset + extras.Size + AmqpConstants.FrameOverhead;
                if (entry.Has(FrameEntryFlags.Sent))
                    sent = end;
                else
                    received = end;
                payloadBytes += PayloadLengthOf(entry, walk.Sequence);
            }
            return new FrameLogTotals(_frames.Count, received, sent, payloadBytes);
        }
    }

    /// <summary>The length of the payload a held frame keeps (what its record's <see cref="FrameRecord.Payload"/> would
    /// hold; 0 for none). Called under the lock.</summary>
    private long PayloadLengthOf(in FrameEntry entry, long sequence)
    {
        if (entry.Has(FrameEntryFlags.Record))
            return _records[sequence].Payload?.Length ?? 0;
        if (!entry.Has(FrameEntryFlags.Payload))
            return 0;
        return entry.Has(FrameEntryFlags.OwnArray)
            ? _payloads.Resolve(entry.Slot, ownArray: true).Length
            : PayloadStore.LengthOf(entry.Slot);
    }

    private FrameFacts Facts(in FrameEntry entry, long sequence, in FrameExtras extras)
    {
        if (entry.Has(FrameEntryFlags.Record))
            return new FrameFacts(_records[sequence]);
        if (!entry.Has(FrameEntryFlags.Payload))
            return new FrameFacts(entry, sequence, extras, default, -1);
        var payload = _payloads.Resolve(entry.Slot, entry.Has(FrameEntryFlags.OwnArray));
        return new FrameFacts(entry, sequence, extras, payload.Span, payload.Length);
    }

    /// <summary>A copy of the findings so far.</summary>
    public IReadOnlyList<ProtocolFinding> Findings()
    {
        lock (_gate)
            return [.. _findings];
    }

    /// <summary>Calls <paramref name="onFrame"/> for every frame appended from now on, until the returned handle is
    /// disposed. The callback runs on the appending thread: keep it short and never block in it. Each frame reaches
    /// each subscriber once, as a <see cref="FrameRecord"/> made for it (so subscribing costs one record per
    /// frame).</summary>
    public IDisposable Subscribe(Action<FrameRecord> onFrame)
    {
        ArgumentNullException.ThrowIfNull(onFrame);
        lock (_gate)
            _subscribers = [.. _subscribers, onFrame];
        return new Subscription(this, onFrame);
    }

    private sealed class Subscription(FrameLog log, Action<FrameRecord> onFrame) : IDisposable
    {
        public void Dispose()
        {
            lock (log._gate)
            {
                int at = Array.IndexOf(log._subscribers, onFrame);
                if (at >= 0)
                    log._subscribers = [.. log._subscribers[..at], .. log._subscribers[(at + 1)..]];
            }
        }
    }
}
