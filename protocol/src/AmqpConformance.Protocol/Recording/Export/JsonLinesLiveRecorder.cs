using System.Threading.Channels;

namespace AmqpConformance.Protocol.Recording.Export;

/// <summary>
/// Records frame logs to a JSON Lines file while their connections run: frames are written as they are appended
/// (in sequence order per connection), findings and the <c>end</c> line when the connection is
/// <see cref="Complete">completed</see>. The file is flushed whenever the recorder has caught up, so a reader
/// sees a connection's frames within moments of their arrival.
/// </summary>
/// <remarks>
/// The log's subscriber callback only queues the record; one background loop does all the writing, so a slow disk
/// never blocks a connection. The recorder owns the stream only when <c>leaveOpen</c> is false.
/// <see cref="DisposeAsync"/> completes every log still attached (with the reason "recording stopped"), waits
/// for the loop to write everything, flushes, and rethrows the write error that stopped the loop, if any (after such
/// an error nothing more is queued, so memory stays bounded).
/// </remarks>
public sealed class JsonLinesLiveRecorder : IAsyncDisposable
{
    /// <summary>The end reason written for logs still attached when the recorder is disposed.</summary>
    public const string StoppedReason = "recording stopped";

    private readonly object _gate = new();
    private readonly JsonLinesExporter _exporter;
    private readonly Channel<Item> _queue = Channel.CreateUnbounded<Item>(
        new UnboundedChannelOptions { SingleReader = true }
    );
    private readonly Dictionary<FrameLog, IDisposable> _attached = new(ReferenceEqualityComparer.Instance);
    private readonly HashSet<long> _connectionIds = [];
    private readonly Task _loop;
    private bool _disposed;

    /// <summary>Starts the background writer over <paramref name="output"/>.</summary>
    public JsonLinesLiveRecorder(Stream output, bool leaveOpen = false)
    {
        _exporter = new JsonLinesExporter(output, leaveOpen);
        _loop = Task.Run(WriteLoopAsync);
    }

    /// <summary>Opens <paramref name="path"/> (replacing any file there) and records into it.</summary>
    public static JsonLinesLiveRecorder Create(string path) =>
        new(new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, bufferSize: 1)); // the exporter batches whole lines

    /// <summary>How many lines have been written (all kinds).</summary>
    public long LinesWritten => Interlocked.Read(ref _linesWritten);
    private long _linesWritten;

    /// <summary>Starts recording <paramref name="log"/>: its <c>log</c> line, the frames it already holds, and every
    /// frame appended from now on. Each connection id may be attached once per recorder.</summary>
    /// <exception cref="ArgumentException">A log with the same <see cref="FrameLog.ConnectionId"/> was attached
    /// before.</exception>
    public void Attach(FrameLog log)
    {
        ArgumentNullException.ThrowIfNull(log);
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            if (!_connectionIds.Add(log.ConnectionId))
                throw new ArgumentException($"Connection {log.ConnectionId} is already being recorded.", nameof(log));
            IDisposable subscription = log.Subscribe(record => _queue.Writer.TryWrite(new Item.Frame(log, record)));
            // Every frame from here on reaches the subscription; older ones only the snapshot, which under
            // FrameLogOptions.MaxRetainedFrames may start past 0. Recording starts at the oldest frame either has.
            long subscribedFrom = log.NextSequence;
            IReadOnlyList<FrameRecord> held = log.Snapshot();
            long first = held.Count > 0 ? Math.Min(held[0].Sequence, subscribedFrom) : subscribedFrom;
            _queue.Writer.TryWrite(new Item.Start(log, first));
            _attached[log] = subscription;
            foreach (FrameRecord record in held)
                _queue.Writer.TryWrite(new Item.Frame(log, record));
        }
    }

    /// <summary>Stops recording <paramref name="log"/>: writes any frames not yet written, its findings, and its
    /// <c>end</c> line with <paramref name="reason"/>. Does nothing for a log that is not attached.</summary>
    public void Complete(FrameLog log, string? reason)
    {
        ArgumentNullException.ThrowIfNull(log);
        lock (_gate)
        {
            if (!_attached.Remove(log, out IDisposable? subscription))
                return;
            subscription.Dispose();
            _queue.Writer.TryWrite(new Item.End(log, FrameLogSnapshot.From(log, reason, ended: true)));
        }
    }

    /// <summary>Completes every attached log, writes everything queued, flushes, and closes the stream unless left
    /// open.</summary>
    public async ValueTask DisposeAsync()
    {
        lock (_gate)
        {
            if (_disposed)
                return;
            foreach (FrameLog log in _attached.Keys.ToList())
                Complete(log, StoppedReason);
            _disposed = true;
            _queue.Writer.TryComplete();
        }
        Exception? loopError = null;
        try
        {
            await _loop.ConfigureAwait(false);
        }
        catch (Exception e)
        {
            loopError = e;
        }
        try
        {
            _exporter.Dispose();
        }
        catch (Exception) when (loopError is not null)
        {
            // The stream already failed; the loop's error is the one to report.
        }
        if (loopError is not null)
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(loopError);
    }

    private async Task WriteLoopAsync()
    {
        try
        {
            await WriteAllAsync().ConfigureAwait(false);
        }
        catch (Exception e)
        {
            _queue.Writer.TryComplete(e); // stop queueing: later frames are dropped, DisposeAsync rethrows
            while (_queue.Reader.TryRead(out _)) { }
            throw;
        }
    }

    private async Task WriteAllAsync()
    {
        var progress = new Dictionary<FrameLog, Progress>(ReferenceEqualityComparer.Instance);
        ChannelReader<Item> reader = _queue.Reader;
        while (await reader.WaitToReadAsync().ConfigureAwait(false))
        {
            while (reader.TryRead(out Item? item))
            {
                switch (item)
                {
                    case Item.Start start:
                        _exporter.WriteLogStart(start.Log);
                        progress[start.Log] = new Progress { NextSequence = start.FirstSequence };
                        Count(1);
                        break;
                    case Item.Frame frame when progress.TryGetValue(frame.Log, out Progress? p):
                        WriteInOrder(frame.Log, p, frame.Record);
                        break;
                    case Item.End end when progress.Remove(end.Log, out Progress? p):
                        foreach (FrameRecord record in end.Snapshot.Frames)
                            if (record.Sequence >= p.NextSequence)
                                WriteInOrder(end.Log, p, record);
                        foreach (ProtocolFinding finding in end.Snapshot.Findings)
                            _exporter.WriteFinding(end.Log.ConnectionId, finding);
                        // The frame lines written, which under MaxRetainedFrames may be more than the log still holds.
                        _exporter.WriteEnd(
                            end.Log.ConnectionId,
                            end.Snapshot.EndReason,
                            checked((int)p.Written),
                            end.Snapshot.Findings.Count
                        );
                        Count(end.Snapshot.Findings.Count + 1);
                        break;
                }
            }
            _exporter.Flush(); // caught up: make what we have visible
        }
    }

    /// <summary>Writes <paramref name="record"/> if it is the next one of its log, then any held-back successors; holds
    /// it back if it came early (the snapshot and the subscription of <see cref="Attach"/> can race); drops
    /// duplicates.</summary>
    private void WriteInOrder(FrameLog log, Progress progress, FrameRecord record)
    {
        if (record.Sequence < progress.NextSequence)
            return;
        if (record.Sequence > progress.NextSequence)
        {
            progress.Early.TryAdd(record.Sequence, record);
            return;
        }
        _exporter.WriteFrame(log.ConnectionId, record);
        progress.NextSequence++;
        progress.Written++;
        Count(1);
        while (progress.Early.Remove(progress.NextSequence, out FrameRecord? next))
        {
            _exporter.WriteFrame(log.ConnectionId, next);
            progress.NextSequence++;
            progress.Written++;
            Count(1);
        }
    }

    private void Count(long lines) => Interlocked.Add(ref _linesWritten, lines);

    private sealed class Progress
    {
        public long NextSequence { get; set; }
        public long Written { get; set; }
        public Dictionary<long, FrameRecord> Early { get; } = [];
    }

    private abstract record Item
    {
        public sealed record Start(FrameLog Log, long FirstSequence) : Item;

        public sealed record Frame(FrameLog Log, FrameRecord Record) : Item;

        public sealed record End(FrameLog Log, FrameLogSnapshot Snapshot) : Item;
    }
}
