using System.IO.Pipelines;

namespace AmqpConformance.Properties.Running;

/// <summary>The flushes of <see cref="ControlledOutput"/>: holding them for the harness, ending them when the writer
/// cancels (as a pipe would: a cancel that met no flush ends the next one), numbering them for the lifecycle's
/// bookkeeping, and firing the cancellations armed for the n-th flush (<see cref="FireOnFlush"/>).</summary>
internal sealed partial class ControlledOutput
{
    /// <summary>Called on the flush's thread once a flush that reached the inner pipe has its result, before the writer
    /// gets it: a seam for tests that put a cancel (or anything else) in that window.</summary>
    internal Action? FlushDecided { get; set; }

    public override void CancelPendingFlush()
    {
        Touch();
        TaskCompletionSource<bool>[] held;
        lock (_gate)
        {
            held = [.. _held];
            _held.Clear();
            // A cancelled flush is giving up on the output; so is giving up on bytes already committed but not yet
            // flushed (a writer descheduled between its write and its flush when its drain timeout ran out: they reach
            // the broker only if something flushes later), and so is a give-up that met nothing pending: it may have
            // met a write in progress, or a loop between two commands that now drops what it accepted.
            FlushCancelledAt ??= _clock();
            // A pipe's cancel that meets no flush in progress is kept for the next flush, which then returns IsCanceled
            // at once: a writer that gives up while its thread is between writing and flushing relies on that (Inline's
            // disposal does).
            _cancelNext = _uncancelledPending == 0;
            _cancelledUpTo = _flushSeq;
            _uncancelledPending = 0;
            // Passed on only to a flush the inner pipe holds; otherwise the inner pipe would keep it and cancel a later
            // flush nobody gave up on.
            if (_innerPending > 0)
                _inner.CancelPendingFlush();
        }
        foreach (var h in held)
            h.TrySetResult(false);
    }

    public override ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default)
    {
        EnterUse("FlushAsync");
        try
        {
            if (Volatile.Read(ref _pendingFlushes) > 0)
                NoteConcurrentUse("FlushAsync while an earlier flush of the writer's was still pending");
            Touch();
            Volatile.Write(ref _writing, 0);
            long n = Interlocked.Increment(ref _flushes);
            FireFlushTriggers(n);
            var flush = FlushCoreAsync(cancellationToken);
            // Completed at once, it is a plain result, as a pipe's synchronous flush is; otherwise its consumer gets a
            // source that, like a pipe's, can be consumed once.
            return flush.IsCompleted ? flush : SingleConsumerFlush.Wrap(flush);
        }
        finally
        {
            ExitUse();
        }
    }

    private async ValueTask<FlushResult> FlushCoreAsync(CancellationToken cancellationToken)
    {
        Interlocked.Increment(ref _pendingFlushes);
        long flushId;
        bool decided = false;
        lock (_gate)
        {
            flushId = ++_flushSeq;
            if (_cancelNext)
            {
                _cancelNext = false;
                _cancelledUpTo = flushId; // the cancel that met nothing pending ends this flush
            }
            else
                _uncancelledPending++;
            if (Interlocked.Read(ref _committedAtDispose) >= 0)
                _flushesAfterDispose++;
        }
        try
        {
            if (_noise is not null && _noise.Next(4) == 0)
                await Task.Yield();
            TaskCompletionSource<bool>? hold = null;
            bool endedBeforeHold = false;
            lock (_gate)
            {
                if (_holding && flushId <= _cancelledUpTo)
                    endedBeforeHold = true;
                else if (_holding)
                {
                    hold = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
                    _held.Add(hold);
                }
            }
            // A cancel ended this flush before it reached the hold: a stalled pipe's flush would return cancelled at
            // once.
            if (endedBeforeHold)
                return new FlushResult(isCanceled: true, isCompleted: false);
            if (hold is not null)
            {
                Signal();
                bool proceed;
                using (cancellationToken.Register(static s => ((TaskCompletionSource<bool>)s!).TrySetCanceled(), hold))
                    proceed = await hold.Task.ConfigureAwait(false);
                if (!proceed)
                    return new FlushResult(isCanceled: true, isCompleted: false);
            }
            ValueTask<FlushResult> flush;
            long handedOn;
            lock (_gate)
            {
                // One a cancel ended before it got here: the inner pipe reports it cancelled, with its bytes handed on,
                // as a pipe does.
                if (flushId <= _cancelledUpTo)
                    _inner.CancelPendingFlush();
                flush = _inner.FlushAsync(cancellationToken);
                _innerPending++;
                // A pipe hands every committed byte to its reader when the flush starts; waiting is only for
                // backpressure.
                handedOn = _committed;
                Interlocked.Exchange(ref _flushedOffset, handedOn);
            }
            Signal();
            FlushResult result;
            try
            {
                result = await flush.ConfigureAwait(false);
            }
            finally
            {
                lock (_gate)
                    _innerPending--;
            }
            lock (_gate)
            {
                // The result is decided: from here on this flush no longer counts as pending, in the same step, so a
                // cancel that comes after it (before the writer has its result) finds nothing pending and is kept for
                // the next flush, as a pipe keeps it. Counted as pending until the writer resumed, such a cancel would
                // be lost, and a writer that gave up on a stalled output (Zoo:FlushPerFrame, one flush per frame) would
                // wait at the hold with its next flush and write after its disposal returned.
                decided = true;
                if (flushId > _cancelledUpTo)
                    _uncancelledPending--;
                // A cancel that came while this flush was in the inner pipe, too late to end it (it completed all the
                // same), is kept for the next flush likewise: the writer gave up, and its next flush must end at once,
                // not wait at a hold.
                else if (!result.IsCanceled && flushId == _flushSeq)
                    _cancelNext = true;
            }
            FlushDecided?.Invoke();
            if (result.IsCompleted)
                NoteFault();
            // Delivered only once the flush returns successfully, before the writer sees the result (so before it can
            // complete a call on the strength of it); a flush that threw, or reported the reader gone or a
            // cancellation, delivered nothing.
            else if (!result.IsCanceled)
                MaxInto(ref _deliveredOffset, handedOn);
            return result;
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            throw;
        }
        catch (IOException failure) when (_failureStyle != TransportFailureStyle.AsThrown)
        {
            NoteFault();
            throw _failureStyle.Translate(failure);
        }
        catch
        {
            NoteFault();
            throw;
        }
        finally
        {
            lock (_gate)
            {
                // A flush numbered up to the last cancel was taken off the count by that cancel; a decided one took
                // itself off.
                if (!decided && flushId > _cancelledUpTo)
                    _uncancelledPending--;
            }
            Interlocked.Decrement(ref _pendingFlushes);
            Touch();
            Signal();
        }
    }
}
