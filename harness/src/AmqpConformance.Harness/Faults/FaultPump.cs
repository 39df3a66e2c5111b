using System.Buffers;
using System.IO.Pipelines;

namespace AmqpConformance.Harness.Faults;

/// <summary>
/// Moves one direction of a connection from a <see cref="ChunkPipe"/> (what the sender flushed) to a
/// sink <see cref="PipeWriter"/> (what the receiver reads), applying the faults in a
/// <see cref="LiveFaultList"/> and recording every step in a <see cref="FaultTranscript"/>. Used by the
/// in-process <see cref="FaultyTransport"/> and by the TCP fault proxy, so both apply faults identically.
/// </summary>
/// <remarks>
/// <para>Per chunk (one sender flush), in this order: point faults at the current stream position
/// (limit_data, reset_peer, stall, black hole); then the bytes up to the next fault position are cut by
/// the first <see cref="SlicerFault"/>, delayed by every <see cref="LatencyFault"/> (summed, jitter drawn
/// once per chunk), paced by the slowest <see cref="BandwidthFault"/> (in pieces of at most 100 ms worth),
/// and each slice is written and flushed to the sink on its own.</para>
/// <para>Random draws come from a generator seeded by the plan seed and the direction, consumed in stream
/// order, so the transcript depends only on the seed, the faults and the sender's flushes.</para>
/// <para>The pump never terminates the connection itself: it asks its host through the terminate
/// callback, and the host cancels the token given to <see cref="RunAsync"/>. Completing the source reader
/// and the sink writer after <see cref="RunAsync"/> returns is the host's job, because what each side
/// should see depends on the outcome.</para>
/// </remarks>
public sealed class FaultPump
{
    private readonly FaultDirection _direction;
    private readonly ChunkPipe _source;
    private readonly PipeWriter _sink;
    private readonly LiveFaultList _faults;
    private readonly DeterministicRandom _random;
    private readonly FaultClock _clock;
    private readonly FaultTranscript _transcript;
    private readonly Action<FaultTermination> _terminate;
    private readonly Dictionary<Fault, FaultState> _states = new(ReferenceEqualityComparer.Instance);
    private long _offset;
    private long _delivered;
    private TimeSpan _bandwidthNext;
    private CancellationToken _cancellation;

    /// <summary>Creates a pump; nothing moves until <see cref="RunAsync"/>.</summary>
    public FaultPump(
        FaultDirection direction,
        ChunkPipe source,
        PipeWriter sink,
        LiveFaultList faults,
        int seed,
        FaultClock clock,
        FaultTranscript transcript,
        Action<FaultTermination> terminate
    )
    {
        _direction = direction;
        _source = source ?? throw new ArgumentNullException(nameof(source));
        _sink = sink ?? throw new ArgumentNullException(nameof(sink));
        _faults = faults ?? throw new ArgumentNullException(nameof(faults));
        _clock = clock ?? throw new ArgumentNullException(nameof(clock));
        _transcript = transcript ?? throw new ArgumentNullException(nameof(transcript));
        _terminate = terminate ?? throw new ArgumentNullException(nameof(terminate));
        _random = DeterministicRandom.For(seed, direction);
    }

    /// <summary>The direction this pump carries.</summary>
    public FaultDirection Direction => _direction;

    /// <summary>Bytes taken from the source so far (delivered or dropped).</summary>
    public long Offset => Interlocked.Read(ref _offset);

    /// <summary>Bytes written to the sink so far.</summary>
    public long DeliveredBytes => Interlocked.Read(ref _delivered);

    /// <summary>The sender's completion exception, when the outcome is
    /// <see cref="FaultPumpOutcome.SourceFailed"/>.</summary>
    public Exception? SourceError { get; private set; }

    /// <summary>The exception writing to the sink threw, if that is why the pump stopped.</summary>
    public Exception? SinkError { get; private set; }

    /// <summary>Pumps until the source ends, the sink stops reading, or <paramref name="cancellationToken"/> is
    /// cancelled (the host's signal that the connection was terminated). Never throws for those, nor when the source
    /// pipe refuses to be read because its writer misused it (a sender writing and flushing from two threads at once
    /// can leave the pipe completed under the pump): that ends the pump as a failed source, with the pipe's message as
    /// <see cref="SourceError"/>, instead of failing whoever awaits the transport.</summary>
    public async Task<FaultPumpOutcome> RunAsync(CancellationToken cancellationToken)
    {
        _cancellation = cancellationToken;
        try
        {
            return await RunCoreAsync().ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            return FaultPumpOutcome.Terminated;
        }
        catch (InvalidOperationException e)
        {
            SourceError = e;
            _transcript.Add(
                new(
                    _direction,
                    TranscriptEventKind.Ended,
                    Offset,
                    0,
                    TimeSpan.Zero,
                    "the source pipe refused the pump: " + e.Message
                )
            );
            return FaultPumpOutcome.SourceFailed;
        }
    }

    private async Task<FaultPumpOutcome> RunCoreAsync()
    {
        PipeReader reader = _source.Reader;
        while (true)
        {
            ReadResult result;
            try
            {
                result = await reader.ReadAsync(_cancellation).ConfigureAwait(false);
            }
            catch (Exception e) when (e is not OperationCanceledException || !_cancellation.IsCancellationRequested)
            {
                SourceError = e;
                _transcript.Add(
                    new(_direction, TranscriptEventKind.Ended, Offset, 0, TimeSpan.Zero, "sender failed: " + e.Message)
                );
                return FaultPumpOutcome.SourceFailed;
            }

            ReadOnlySequence<byte> buffer = result.Buffer;
            long used = 0;
            Step step = Step.Continue;
            while (
                step == Step.Continue
                && _source.TryPeekChunk(out ChunkPipe.PendingChunk chunk)
                && chunk.Length <= buffer.Length - used
            )
            {
                _source.DequeueChunk();
                step = await ProcessChunkAsync(buffer.Slice(used, chunk.Length), chunk.Timestamp).ConfigureAwait(false);
                used += chunk.Length;
                _source.Consumed(chunk.Length);
            }
            if (step == Step.Continue && result.IsCompleted && buffer.Length > used)
            {
                long rest = buffer.Length - used; // written without a flush, then completed: one last chunk
                step = await ProcessChunkAsync(buffer.Slice(used), _clock.Time.GetTimestamp()).ConfigureAwait(false);
                used += rest;
                _source.Consumed(rest);
            }
            reader.AdvanceTo(buffer.GetPosition(used), buffer.End);

            if (step == Step.SinkEnded)
                return FaultPumpOutcome.SinkEnded;
            if (step == Step.Terminated)
            {
                _cancellation.ThrowIfCancellationRequested();
                return FaultPumpOutcome.Terminated;
            }
            if (result.IsCompleted && used == buffer.Length)
            {
                TimeSpan delay = TimeSpan.FromMilliseconds(
                    _faults.Current.OfType<SlowCloseFault>().Sum(f => (long)f.DelayMs)
                );
                await _clock.DelayAsync(delay, _cancellation).ConfigureAwait(false);
                _transcript.Add(new(_direction, TranscriptEventKind.Ended, Offset, 0, delay));
                return FaultPumpOutcome.SourceEnded;
            }
        }
    }

    private async ValueTask<Step> ProcessChunkAsync(ReadOnlySequence<byte> chunk, long timestamp)
    {
        TimeSpan arrival = _clock.TimeOf(timestamp);
        long pos = 0;
        while (pos < chunk.Length)
        {
            IReadOnlyList<Fault> faults = _faults.Current;
            foreach (Fault f in faults)
                if (!_states.ContainsKey(f))
                    _states[f] = new FaultState(_offset);

            bool restart = false;
            foreach (Fault f in faults)
            {
                FaultState st = _states[f];
                switch (f)
                {
                    case LimitDataFault l when _offset >= st.Base + l.Bytes:
                        return Terminate(false, $"limit_data {l.Bytes} bytes reached", chunk.Length - pos);

                    case ResetPeerFault { AfterBytes: long after } r when _offset >= st.Base + after:
                        await _clock
                            .DelayAsync(TimeSpan.FromMilliseconds(r.TimeoutMs), _cancellation)
                            .ConfigureAwait(false);
                        return Terminate(true, $"reset_peer after {after} bytes", chunk.Length - pos);

                    case ResetPeerFault { AfterBytes: null } r:
                        await _clock
                            .DelayAsync(TimeSpan.FromMilliseconds(r.TimeoutMs), _cancellation)
                            .ConfigureAwait(false);
                        return Terminate(true, $"reset_peer on data after {r.TimeoutMs} ms", chunk.Length - pos);

                    case StallFault s when !st.Fired && _offset >= st.Base + s.AfterBytes:
                        st.Fired = true;
                        await StallAsync(s).ConfigureAwait(false);
                        restart = true;
                        break;

                    case BlackHoleFault b when _offset >= st.Base + b.AfterBytes:
                        if (!st.Fired)
                        {
                            st.Fired = true;
                            _transcript.Add(
                                new(
                                    _direction,
                                    TranscriptEventKind.BlackHoleOpened,
                                    _offset,
                                    0,
                                    TimeSpan.FromMilliseconds(b.TimeoutMs)
                                )
                            );
                            if (b.TimeoutMs > 0 && _clock.Mode == FaultTimeMode.Virtual)
                                return Terminate(
                                    false,
                                    $"black hole timed out after {b.TimeoutMs} ms",
                                    chunk.Length - pos
                                );
                            _ = WatchBlackHoleAsync(b);
                        }
                        long dropped = chunk.Length - pos;
                        _transcript.Add(new(_direction, TranscriptEventKind.Dropped, _offset, dropped, TimeSpan.Zero));
                        Interlocked.Add(ref _offset, dropped);
                        return Step.Continue;
                }
                if (restart)
                    break;
            }
            if (restart)
                continue;

            long segment = chunk.Length - pos;
            foreach (Fault f in faults)
            {
                long? at = f switch
                {
                    LimitDataFault l => l.Bytes,
                    ResetPeerFault { AfterBytes: long a } => a,
                    StallFault s when !_states[f].Fired => s.AfterBytes,
                    BlackHoleFault b => b.AfterBytes,
                    _ => null,
                };
                if (at is long rel && _states[f].Base + rel > _offset)
                    segment = Math.Min(segment, _states[f].Base + rel - _offset);
            }

            Step step = await DeliverAsync(chunk.Slice(pos, segment), arrival, faults).ConfigureAwait(false);
            pos += segment;
            if (step != Step.Continue)
                return step;
        }
        return Step.Continue;
    }

    private async ValueTask<Step> DeliverAsync(
        ReadOnlySequence<byte> data,
        TimeSpan arrival,
        IReadOnlyList<Fault> faults
    )
    {
        SlicerFault? slicer = null;
        int rate = 0;
        long latencyMs = 0;
        foreach (Fault f in faults)
        {
            switch (f)
            {
                case SlicerFault s when slicer is null:
                    slicer = s;
                    break;
                case BandwidthFault b:
                    rate = rate == 0 ? b.RateKBps : Math.Min(rate, b.RateKBps);
                    break;
                case LatencyFault l:
                    latencyMs += l.LatencyMs + (l.JitterMs > 0 ? _random.NextInclusive(-l.JitterMs, l.JitterMs) : 0);
                    break;
            }
        }
        TimeSpan latency = TimeSpan.FromMilliseconds(Math.Max(0, latencyMs));
        TimeSpan due = arrival + latency;
        long pos = 0;
        bool first = true;
        while (pos < data.Length)
        {
            long slice = data.Length - pos;
            TimeSpan gap = TimeSpan.Zero;
            if (slicer is not null)
            {
                slice = Math.Clamp(
                    slicer.AverageSize + _random.NextInclusive(-slicer.SizeVariation, slicer.SizeVariation),
                    1,
                    slice
                );
                if (!first && slicer.DelayMicroseconds > 0)
                {
                    gap = TimeSpan.FromMicroseconds(slicer.DelayMicroseconds);
                    TimeSpan now = _clock.Now;
                    due = (due > now ? due : now) + gap; // a real pause after the previous slice went out
                }
            }
            long slicePos = 0;
            while (slicePos < slice)
            {
                long piece = rate > 0 ? Math.Min(slice - slicePos, rate * 100L) : slice - slicePos;
                TimeSpan planned = (first ? latency : TimeSpan.Zero) + gap;
                if (rate > 0)
                {
                    TimeSpan cost = TimeSpan.FromMilliseconds((double)piece / rate);
                    if (_bandwidthNext < due)
                        _bandwidthNext = due;
                    _bandwidthNext += cost;
                    due = _bandwidthNext;
                    planned += cost;
                }
                await _clock.DelayUntilAsync(due, _cancellation).ConfigureAwait(false);
                if (!await WriteAsync(data.Slice(pos + slicePos, piece)).ConfigureAwait(false))
                    return Step.SinkEnded;
                _transcript.Add(new(_direction, TranscriptEventKind.Delivered, _offset, piece, planned));
                Interlocked.Add(ref _offset, piece);
                Interlocked.Add(ref _delivered, piece);
                slicePos += piece;
                first = false;
                gap = TimeSpan.Zero;
            }
            pos += slice;
        }
        return Step.Continue;
    }

    private async ValueTask<bool> WriteAsync(ReadOnlySequence<byte> piece)
    {
        try
        {
            foreach (ReadOnlyMemory<byte> segment in piece)
                _sink.Write(segment.Span);
            FlushResult flushed = await _sink.FlushAsync(_cancellation).ConfigureAwait(false);
            return !flushed.IsCompleted;
        }
        catch (Exception e) when (!_cancellation.IsCancellationRequested)
        {
            SinkError = e;
            return false;
        }
    }

    private async ValueTask StallAsync(StallFault stall)
    {
        TimeSpan planned = stall.DurationMs is int ms ? TimeSpan.FromMilliseconds(ms) : TimeSpan.Zero;
        _transcript.Add(
            new(
                _direction,
                TranscriptEventKind.StallStarted,
                _offset,
                0,
                planned,
                stall.DurationMs is null ? "until released" : null
            )
        );
        if (stall.DurationMs is not null)
            await _clock.DelayAsync(planned, _cancellation).ConfigureAwait(false);
        else
            await WaitWhilePresentAsync(stall).ConfigureAwait(false);
        _transcript.Add(new(_direction, TranscriptEventKind.StallEnded, _offset, 0, TimeSpan.Zero));
    }

    private async Task WaitWhilePresentAsync(Fault fault)
    {
        while (true)
        {
            Task changed = _faults.WhenChanged;
            if (!_faults.Contains(fault))
                return;
            await changed.WaitAsync(_cancellation).ConfigureAwait(false);
        }
    }

    private async Task WatchBlackHoleAsync(BlackHoleFault hole)
    {
        try
        {
            Task removed = WaitWhilePresentAsync(hole);
            Task timeout =
                hole.TimeoutMs > 0
                    ? Task.Delay(TimeSpan.FromMilliseconds(hole.TimeoutMs), _clock.Time, _cancellation)
                    : Task.Delay(Timeout.Infinite, _cancellation);
            Task first = await Task.WhenAny(removed, timeout).ConfigureAwait(false);
            await first.ConfigureAwait(false);
            string reason =
                first == removed
                    ? "black hole removed (bytes were lost, so the stream cannot go on)"
                    : $"black hole timed out after {hole.TimeoutMs} ms";
            _transcript.Add(new(_direction, TranscriptEventKind.Closed, Offset, 0, TimeSpan.Zero, reason));
            _terminate(new FaultTermination(false, _direction, reason));
        }
        catch (OperationCanceledException)
        {
            // The connection ended some other way first.
        }
    }

    private Step Terminate(bool reset, string reason, long lost)
    {
        _transcript.Add(
            new(
                _direction,
                reset ? TranscriptEventKind.Reset : TranscriptEventKind.Closed,
                _offset,
                lost,
                TimeSpan.Zero,
                reason
            )
        );
        _terminate(new FaultTermination(reset, _direction, reason));
        return Step.Terminated;
    }

    private enum Step
    {
        Continue,
        SinkEnded,
        Terminated,
    }

    private sealed class FaultState(long @base)
    {
        public long Base { get; } = @base;
        public bool Fired { get; set; }
    }
}
