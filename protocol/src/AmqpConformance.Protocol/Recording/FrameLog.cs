namespace AmqpConformance.Protocol.Recording;

/// <summary>
/// Append-only record of every frame of one connection, plus the broker's findings on it.
/// Thread-safe: one appender (the connection's reader or writer loop) and any number of readers.
/// </summary>
public sealed class FrameLog
{
    private readonly object _gate = new();
    private readonly List<FrameRecord> _frames = [];
    private readonly List<ProtocolFinding> _findings = [];
    private readonly List<Action<FrameRecord>> _subscribers = [];
    private readonly long _startTimestamp;
    private long _dropped;

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

    /// <summary>How many frames the log holds: every frame recorded, unless <see cref="FrameLogOptions.MaxRetainedFrames"/>
    /// made it drop the oldest (<see cref="DroppedFrames"/> of them).</summary>
    public int Count { get { lock (_gate) return _frames.Count; } }

    /// <summary>How many of the oldest frames were dropped from memory under <see cref="FrameLogOptions.MaxRetainedFrames"/>
    /// (always 0 without it): the first held frame has this sequence number.</summary>
    public long DroppedFrames { get { lock (_gate) return _dropped; } }

    /// <summary>The sequence number the next appended frame gets (the number of frames recorded so far).</summary>
    public long NextSequence { get { lock (_gate) return _dropped + _frames.Count; } }

    /// <summary>Appends a frame. Its <see cref="FrameRecord.Sequence"/> must equal <see cref="NextSequence"/>
    /// (use <see cref="Append(Func{long, FrameRecord})"/> to have it assigned). Subscribers are called on the
    /// appending thread, after the record is visible to readers.</summary>
    public void Append(FrameRecord record)
    {
        ArgumentNullException.ThrowIfNull(record);
        Append(seq => record.Sequence == seq ? record
            : throw new ArgumentException($"Record sequence {record.Sequence} is not the next one ({seq}).", nameof(record)));
    }

    /// <summary>Appends the record <paramref name="create"/> makes for the next sequence number; returns it.</summary>
    public FrameRecord Append(Func<long, FrameRecord> create)
    {
        ArgumentNullException.ThrowIfNull(create);
        FrameRecord record;
        Action<FrameRecord>[] subscribers;
        lock (_gate)
        {
            record = create(_dropped + _frames.Count);
            _frames.Add(record);
            DropOldestIfOverBound();
            subscribers = _subscribers.Count == 0 ? [] : [.. _subscribers];
        }
        foreach (var s in subscribers) s(record);
        return record;
    }

    /// <summary>Appends the record <paramref name="create"/> makes from <paramref name="state"/> and the next sequence
    /// number; returns it. The same as <see cref="Append(Func{long, FrameRecord})"/>, but a static lambda with its
    /// inputs in <paramref name="state"/> allocates no closure, which matters on the broker's per-frame path.</summary>
    public FrameRecord Append<TState>(TState state, Func<long, TState, FrameRecord> create)
    {
        ArgumentNullException.ThrowIfNull(create);
        FrameRecord record;
        Action<FrameRecord>[]? subscribers = null;
        lock (_gate)
        {
            record = create(_dropped + _frames.Count, state);
            _frames.Add(record);
            DropOldestIfOverBound();
            if (_subscribers.Count != 0) subscribers = [.. _subscribers];
        }
        if (subscribers is not null) foreach (var s in subscribers) s(record);
        return record;
    }

    /// <summary>Under <see cref="FrameLogOptions.MaxRetainedFrames"/> = n: once 2n frames are held, drops all but the
    /// newest n (one batch, so the cost per append stays constant). Called under the lock.</summary>
    private void DropOldestIfOverBound()
    {
        if (Options.MaxRetainedFrames is not { } max || _frames.Count < 2L * max) return;
        int drop = _frames.Count - max;
        _frames.RemoveRange(0, drop);
        _dropped += drop;
    }

    /// <summary>Records a validation finding.</summary>
    public void AddFinding(ProtocolFinding finding)
    {
        ArgumentNullException.ThrowIfNull(finding);
        lock (_gate) _findings.Add(finding);
    }

    /// <summary>A copy of the frames held so far, in sequence order (all recorded frames unless
    /// <see cref="FrameLogOptions.MaxRetainedFrames"/> dropped the oldest).</summary>
    public IReadOnlyList<FrameRecord> Snapshot() { lock (_gate) return [.. _frames]; }

    /// <summary>A copy of the findings so far.</summary>
    public IReadOnlyList<ProtocolFinding> Findings() { lock (_gate) return [.. _findings]; }

    /// <summary>Calls <paramref name="onFrame"/> for every frame appended from now on, until the returned handle is disposed.
    /// The callback runs on the appending thread: keep it short and never block in it.</summary>
    public IDisposable Subscribe(Action<FrameRecord> onFrame)
    {
        ArgumentNullException.ThrowIfNull(onFrame);
        lock (_gate) _subscribers.Add(onFrame);
        return new Subscription(this, onFrame);
    }

    private sealed class Subscription(FrameLog log, Action<FrameRecord> onFrame) : IDisposable
    {
        public void Dispose() { lock (log._gate) log._subscribers.Remove(onFrame); }
    }
}
