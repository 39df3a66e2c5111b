using System.Diagnostics;
using System.IO.Pipelines;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// The <see cref="PipeWriter"/> a writer under test gets. It passes everything to the transport and, on the way:
/// follows the committed bytes (<see cref="OutputStreamScanner"/>); records what the writer did (bytes committed,
/// flushes, when the output first reported a fault, bytes committed after that or after disposal); lets the harness
/// decide when flushes complete (<see cref="Hold"/>, <see cref="Release"/>: a stalled socket on demand); fires
/// cancellations armed for "the n-th flush" or "the n-th request for memory" (<see cref="FireOnFlush"/>,
/// <see cref="FireOnMemoryRequest"/>); and, when asked, adds seeded timing noise at the writer's touch points to
/// widen race windows inside it.
/// </summary>
/// <remarks>Thread-safe as far as the harness needs: a correct writer touches it from one thread at a time, a broken
/// one may not, and then the inner pipe's own checks report the misuse to the writer.</remarks>
internal sealed partial class ControlledOutput : PipeWriter
{
    private readonly PipeWriter _inner;
    private readonly Func<TimeSpan> _clock;
    private readonly object _gate = new();
    private readonly OutputStreamScanner _scanner;
    private readonly TimingNoise? _noise;
    private readonly Random? _shortSpans;
    private readonly List<TaskCompletionSource<bool>> _held = [];
    private TaskCompletionSource _changed = NewSignal();
    private Memory<byte> _last;
    private long _committed;
    private long _flushedOffset;
    private long _deliveredOffset;
    private long _flushes;
    private long _memoryRequests;
    private long _activity;
    private int _pendingFlushes;
    private int _writing;
    private bool _holding;
    private long _committedAtFault = -1;
    private long _committedAtDispose = -1;

    // Flushes by number (the writer's n-th call of FlushAsync); the last one started before the writer's latest
    // CancelPendingFlush (a flush numbered up to it was asked to end); how many of those numbered above it are still
    // pending: all under _gate.
    private long _flushSeq;
    private long _cancelledUpTo;
    private int _uncancelledPending;
    private int _flushesAfterDispose;
    private bool _flushPendingAtDispose;
    private long _heldLastAtDispose;
    private long _releasedAt;

    // As a pipe's: a CancelPendingFlush that met no flush in progress ends the next flush instead (under _gate).
    private bool _cancelNext;

    // Flushes handed to the inner pipe and not yet returned (under _gate): a cancel is passed on only when there is
    // one.
    private int _innerPending;
    private int _harnessCompleting;
    private TimeSpan? _completedByWriterAt;

    private readonly TransportFailureStyle _failureStyle;

    /// <summary>Wraps <paramref name="inner"/>; <paramref name="noiseSeed"/> non-null turns timing noise on; a
    /// transport failure reaches the writer as <paramref name="failureStyle"/> says.</summary>
    public ControlledOutput(
        PipeWriter inner,
        Func<TimeSpan> clock,
        int frameMax,
        int? noiseSeed,
        TransportFailureStyle failureStyle = TransportFailureStyle.AsThrown
    )
    {
        _inner = inner;
        _failureStyle = failureStyle;
        _clock = clock;
        _scanner = new OutputStreamScanner(frameMax);
        _noise = noiseSeed is int seed ? new TimingNoise(seed) : null;
        _shortSpans = noiseSeed is int spans ? new Random(spans + 2) : null;
    }

    /// <summary>With noise on, one request for memory in <see cref="ShortSpanOneIn"/> is answered with no more than the
    /// writer asked for: its size hint, or, without one, 1 to <see cref="ShortSpanMost"/> bytes. A
    /// <see cref="PipeWriter"/> promises only that much (a non-empty span; at least the hint), and a pipe hands out the
    /// rest of its current segment, a few bytes after a write that ended near its end. A writer that encodes a 7-byte
    /// frame header into an unhinted span met that once in a few thousand body frames (Zoo:UnhintedSpan passed 1,200
    /// cases once); now in most noisy cases.</summary>
    public const int ShortSpanOneIn = 4;

    /// <summary>The longest short span handed out without a size hint (one byte short of a frame header and its
    /// end).</summary>
    public const int ShortSpanMost = 7;

    /// <summary>Bytes the writer committed (Advance) so far.</summary>
    public long Committed => Interlocked.Read(ref _committed);

    /// <summary>How many committed bytes had been handed to the transport by the last flush that reached it.</summary>
    public long FlushedOffset => Interlocked.Read(ref _flushedOffset);

    /// <summary>How many committed bytes had been handed on by flushes that returned successfully (neither threw nor
    /// reported IsCompleted or IsCanceled): what the writer's flushes delivered, whatever the transport did with the
    /// bytes afterwards.</summary>
    public long DeliveredOffset => Interlocked.Read(ref _deliveredOffset);

    /// <summary>Where call <paramref name="callId"/>'s whole command ends in the committed bytes, or null while it is
    /// incomplete.</summary>
    public long? EndOf(int callId)
    {
        lock (_gate)
            return _scanner.EndOf(callId);
    }

    /// <summary>Whether the harness could follow the committed bytes to the end (a stream it cannot believe stops the
    /// scanner).</summary>
    public bool Followed
    {
        get
        {
            lock (_gate)
                return !_scanner.Lost;
        }
    }

    /// <summary>Flushes the writer started so far.</summary>
    public long Flushes => Interlocked.Read(ref _flushes);

    /// <summary>A counter that moves whenever the writer touches the output: the harness's sign that the writer is
    /// still busy.</summary>
    public long Activity => Interlocked.Read(ref _activity);

    /// <summary>Whether the writer is in the middle of writing: it got memory and has not committed it yet (a thread
    /// that was descheduled there is still busy, however quiet it looks).</summary>
    public bool IsWriting => Volatile.Read(ref _writing) != 0;

    /// <summary>Whether a flush is pending: held by the harness or waiting for the transport.</summary>
    public bool IsFlushPending => Volatile.Read(ref _pendingFlushes) > 0;

    /// <summary>Whether flushes are being held.</summary>
    public bool IsHolding
    {
        get
        {
            lock (_gate)
                return _holding;
        }
    }

    /// <summary>How many flushes are held right now.</summary>
    public int HeldFlushes
    {
        get
        {
            lock (_gate)
                return _held.Count;
        }
    }

    /// <summary>When a flush first threw or reported the reader gone; null while the output is healthy.</summary>
    public TimeSpan? FaultObservedAt { get; private set; }

    /// <summary>The same moment in real time, a timestamp of <see cref="SchedulingLag.Process"/>'s clock (its
    /// <see cref="ISchedulingLag.Now"/>): how much time the writer's threads had to act on the fault is told in real
    /// time.</summary>
    public long? FaultObservedTimestamp { get; private set; }

    /// <summary>When the writer first called CancelPendingFlush: giving up on its output, whether a flush was pending,
    /// bytes were committed and not flushed, or nothing was pending (the give-up may then have met a write in progress,
    /// a thread between taking a command and committing its bytes, or a loop between two commands that drops what it
    /// had accepted); null if it never did.</summary>
    public TimeSpan? FlushCancelledAt { get; private set; }

    /// <summary>Bytes committed after the fault was reported.</summary>
    public long BytesWrittenAfterFault =>
        Interlocked.Read(ref _committedAtFault) is var at and >= 0 ? Committed - at : 0;

    /// <summary>Bytes committed after <see cref="MarkDisposeReturned"/>.</summary>
    public long BytesWrittenAfterDispose =>
        Interlocked.Read(ref _committedAtDispose) is var at and >= 0 ? Committed - at : 0;

    /// <summary>Flushes the writer started after <see cref="MarkDisposeReturned"/>.</summary>
    public int FlushesAfterDispose
    {
        get
        {
            lock (_gate)
                return _flushesAfterDispose;
        }
    }

    /// <summary>Whether, at <see cref="MarkDisposeReturned"/>, a flush was still pending (its result not yet decided)
    /// that the writer had not asked to end (with CancelPendingFlush, after it started): the writer returned from
    /// disposal while still using its output. A flush it did cancel counts as ended, even if its thread had not yet run
    /// when disposal returned.</summary>
    public bool FlushPendingAtDispose
    {
        get
        {
            lock (_gate)
                return _flushPendingAtDispose;
        }
    }

    /// <summary>The last moment (a <see cref="Stopwatch"/> timestamp) up to
    /// <see cref="MarkDisposeReturned"/> at which the harness held the output (a flush waited until the script pulsed
    /// or released it): then, if it was holding, else when it last released it; null if it never held it before then. A
    /// writer that gave up on its own timer while the output was held gave up on an output that was not taking its
    /// writes.</summary>
    public long? HeldLastAtDispose
    {
        get
        {
            lock (_gate)
                return _heldLastAtDispose == 0 ? null : _heldLastAtDispose;
        }
    }

    /// <summary>Whether call <paramref name="callId"/> has any byte committed.</summary>
    public bool HasStarted(int callId)
    {
        lock (_gate)
            return _scanner.FirstByteOf(callId) is not null;
    }

    /// <summary>Whether the bytes committed so far end inside a command
    /// (<see cref="OutputStreamScanner.MidCommand"/>).</summary>
    public bool IsMidCommand
    {
        get
        {
            lock (_gate)
                return _scanner.MidCommand;
        }
    }

    /// <summary>Whether call <paramref name="callId"/>'s whole command has been committed and handed to the
    /// transport.</summary>
    public bool IsVisible(int callId)
    {
        lock (_gate)
            return _scanner.EndOf(callId) is { } end && end <= _flushedOffset;
    }

    /// <summary>Those of <paramref name="succeeded"/> (calls that completed successfully) whose bytes have not all been
    /// handed to the transport: a call by its own command (<see cref="IsVisible"/>); heartbeat calls, which name
    /// nothing, by count: as many as the flushed heartbeat frames fall short of them, the last to complete first.
    /// Frames of heartbeat calls that failed count as flushed heartbeats too, so this never names more heartbeat calls
    /// than are really unflushed.</summary>
    public IEnumerable<CallTrace> NotVisible(IEnumerable<CallTrace> succeeded)
    {
        var heartbeats = new List<CallTrace>();
        foreach (var t in succeeded)
        {
            if (t.Heartbeat)
                heartbeats.Add(t);
            else if (!IsVisible(t.Id))
                yield return t;
        }
        if (heartbeats.Count == 0)
            yield break;
        foreach (var t in heartbeats.OrderBy(t => t.Ended).ThenBy(t => t.Id).Skip(FlushedHeartbeats))
            yield return t;
    }

    /// <summary>How many heartbeat frames have been committed whole and handed to the transport: heartbeat calls name
    /// nothing in the output, so they are visible by count (<see cref="CaseObserver"/>).</summary>
    public int FlushedHeartbeats
    {
        get
        {
            lock (_gate)
                return _scanner.HeartbeatsEndingBy(_flushedOffset);
        }
    }

    /// <summary>The type of the frame holding committed byte <paramref name="offset"/>, if the scanner followed
    /// it.</summary>
    public Protocol.FrameType? FrameTypeAt(long offset)
    {
        lock (_gate)
            return _scanner.FrameTypeAt(offset);
    }

    /// <summary>How many bytes of an unfinished frame end the committed stream.</summary>
    public long PartialFrameBytes
    {
        get
        {
            lock (_gate)
                return _scanner.PartialFrameBytes;
        }
    }

    /// <summary>Completes at the next flush, commit or fault (a fresh task each time the output changes).</summary>
    public Task WhenChanged
    {
        get
        {
            lock (_gate)
                return _changed.Task;
        }
    }

    /// <summary>From now on every flush waits until <see cref="Release"/>.</summary>
    public void Hold()
    {
        lock (_gate)
            _holding = true;
    }

    /// <summary>Lets every held flush through to the transport and stops holding.</summary>
    public void Release() => CompleteHeld(keepHolding: false);

    /// <summary>Lets every held flush through to the transport and goes on holding: the next flush waits
    /// again.</summary>
    public void Pulse() => CompleteHeld(keepHolding: true);

    private void CompleteHeld(bool keepHolding)
    {
        TaskCompletionSource<bool>[] held;
        lock (_gate)
        {
            if (_holding && !keepHolding)
                _releasedAt = Stopwatch.GetTimestamp();
            _holding = keepHolding;
            held = [.. _held];
            _held.Clear();
        }
        foreach (var h in held)
            h.TrySetResult(true);
    }

    /// <summary>Counts bytes committed and flushes started from now on as after disposal, and notes whether a flush the
    /// writer had not cancelled is still pending.</summary>
    public void MarkDisposeReturned()
    {
        lock (_gate)
        {
            if (Interlocked.CompareExchange(ref _committedAtDispose, Committed, -1) >= 0)
                return;
            _flushPendingAtDispose = _uncancelledPending > 0;
            _heldLastAtDispose = _holding ? Stopwatch.GetTimestamp() : _releasedAt;
        }
    }

    public override void Advance(int bytes)
    {
        EnterUse("Advance");
        try
        {
            Touch();
            Volatile.Write(ref _writing, 0);
            // As a pipe refuses to advance past the memory it handed out: here that may be shorter than the inner
            // pipe's.
            if (_shortSpans is not null && bytes > _last.Length)
                throw new ArgumentOutOfRangeException(
                    nameof(bytes),
                    bytes,
                    $"Advance({bytes}) past the {_last.Length} bytes of memory the output handed out."
                );
            _inner.Advance(bytes);
            lock (_gate)
            {
                if (bytes > 0 && bytes <= _last.Length)
                    _scanner.Feed(_last.Span[..bytes]);
                _committed += bytes;
            }
        }
        finally
        {
            ExitUse();
        }
        Signal();
    }

    public override Memory<byte> GetMemory(int sizeHint = 0)
    {
        // Before the output counts the writer as inside it: the cancellation runs on another thread, and a callback
        // that writes or waits for the writer must not be taken for a second user of the output.
        FireMemoryTriggers(Interlocked.Increment(ref _memoryRequests));
        EnterUse("GetMemory");
        try
        {
            Touch();
            Volatile.Write(ref _writing, 1);
            Perturb();
            var memory = _inner.GetMemory(sizeHint);
            lock (_gate)
            {
                if (_shortSpans is not null && _shortSpans.Next(ShortSpanOneIn) == 0)
                {
                    int most = Math.Max(sizeHint, 1 + _shortSpans.Next(ShortSpanMost));
                    if (memory.Length > most)
                        memory = memory[..most];
                }
                _last = memory;
            }
            return memory;
        }
        finally
        {
            ExitUse();
        }
    }

    public override Span<byte> GetSpan(int sizeHint = 0) => GetMemory(sizeHint).Span;

    public override bool CanGetUnflushedBytes => _inner.CanGetUnflushedBytes;

    public override long UnflushedBytes => _inner.UnflushedBytes;

    /// <summary>When the writer completed this output (<see cref="Complete"/> before
    /// <see cref="CompleteByHarnessAsync"/>), which it must not: the output is the connection's. Null if it never
    /// did.</summary>
    public TimeSpan? CompletedByWriterAt
    {
        get
        {
            lock (_gate)
                return _completedByWriterAt;
        }
    }

    public override void Complete(Exception? exception = null)
    {
        if (Volatile.Read(ref _harnessCompleting) == 0)
            lock (_gate)
                _completedByWriterAt ??= _clock();
        _inner.Complete(exception);
    }

    /// <summary>Completes the output as the connection does when it ends: not counted as the writer's
    /// completion.</summary>
    public ValueTask CompleteByHarnessAsync()
    {
        Volatile.Write(ref _harnessCompleting, 1);
        return CompleteAsync();
    }

    private void NoteFault()
    {
        lock (_gate)
        {
            if (FaultObservedAt is not null)
                return;
            Interlocked.Exchange(ref _committedAtFault, _committed);
            FaultObservedAt = _clock();
            FaultObservedTimestamp = SchedulingLag.Process.Now;
        }
        Signal();
    }

    private static void MaxInto(ref long location, long value)
    {
        long seen = Interlocked.Read(ref location);
        while (value > seen)
        {
            long was = Interlocked.CompareExchange(ref location, value, seen);
            if (was == seen)
                return;
            seen = was;
        }
    }

    private void Touch() => Interlocked.Increment(ref _activity);

    private void Signal()
    {
        TaskCompletionSource changed;
        lock (_gate)
        {
            changed = _changed;
            _changed = NewSignal();
        }
        changed.TrySetResult();
    }

    /// <summary>Seeded noise at a touch point (<see cref="TimingNoise"/>), one call in eight yielding and one
    /// spinning.</summary>
    private void Perturb() => _noise?.Perturb(8);

    private static TaskCompletionSource NewSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);
}
