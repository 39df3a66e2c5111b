using System.Buffers;
using System.Collections.Concurrent;
using System.IO.Pipelines;

namespace AmqpConformance.Harness.Faults;

/// <summary>
/// The sending end of a faulty link: a bounded <see cref="Pipe"/> whose <see cref="Writer"/> remembers
/// each flush as one chunk (its length and when it was flushed), so a <see cref="FaultPump"/> treats the
/// writer's flushes as the unit of transmission whatever the timing of its reads. That is what makes a
/// replay deterministic: the same flushes give the same chunks.
/// </summary>
/// <remarks>Backpressure is the pipe's: once <see cref="BacklogBytes"/> reaches the pause threshold,
/// the writer's FlushAsync does not complete until the pump consumed it below the resume threshold.
/// A stalled pump therefore bounds what a well-behaved writer can hold here.</remarks>
public sealed class ChunkPipe
{
    private readonly Pipe _pipe;
    private readonly ConcurrentQueue<PendingChunk> _chunks = new();
    private readonly TimeProvider _time;
    private long _backlog;

    /// <summary>Creates the pipe. <paramref name="options"/> sets the thresholds (defaults: Pipe's).</summary>
    public ChunkPipe(PipeOptions? options = null, TimeProvider? time = null)
    {
        _pipe = new Pipe(options ?? PipeOptions.Default);
        _time = time ?? TimeProvider.System;
        Writer = new ChunkRecordingWriter(this);
    }

    /// <summary>Where the sender writes. Each FlushAsync (and Complete) ends one chunk.</summary>
    public PipeWriter Writer { get; }

    /// <summary>The pump's end. Only the pump reads it.</summary>
    public PipeReader Reader => _pipe.Reader;

    /// <summary>Bytes flushed but not yet consumed by the pump: what the link is holding for the sender.</summary>
    public long BacklogBytes => Interlocked.Read(ref _backlog);

    /// <summary>The largest <see cref="BacklogBytes"/> seen.</summary>
    public long PeakBacklogBytes { get; private set; }

    internal bool TryPeekChunk(out PendingChunk chunk) => _chunks.TryPeek(out chunk);

    internal void DequeueChunk() => _chunks.TryDequeue(out _);

    internal void Consumed(long bytes) => Interlocked.Add(ref _backlog, -bytes);

    private void Flushed(long length)
    {
        _chunks.Enqueue(new PendingChunk(length, _time.GetTimestamp()));
        long now = Interlocked.Add(ref _backlog, length);
        if (now > PeakBacklogBytes)
            PeakBacklogBytes = now;
    }

    internal readonly record struct PendingChunk(long Length, long Timestamp);

    private sealed class ChunkRecordingWriter(ChunkPipe owner) : PipeWriter
    {
        private readonly PipeWriter _inner = owner._pipe.Writer;
        private long _pending;

        public override bool CanGetUnflushedBytes => true;
        public override long UnflushedBytes => _pending;

        public override void Advance(int bytes)
        {
            _inner.Advance(bytes);
            _pending += bytes;
        }

        public override Memory<byte> GetMemory(int sizeHint = 0) => _inner.GetMemory(sizeHint);

        public override Span<byte> GetSpan(int sizeHint = 0) => _inner.GetSpan(sizeHint);

        public override void CancelPendingFlush() => _inner.CancelPendingFlush();

        public override ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default)
        {
            EndChunk();
            return _inner.FlushAsync(cancellationToken);
        }

        public override void Complete(Exception? exception = null)
        {
            EndChunk();
            _inner.Complete(exception);
        }

        private void EndChunk()
        {
            if (_pending == 0)
                return;
            long length = _pending;
            _pending = 0;
            owner.Flushed(length);
        }
    }
}
