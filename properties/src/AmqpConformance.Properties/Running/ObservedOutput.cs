using System.IO.Pipelines;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// The <see cref="PipeWriter"/> a writer under test gets: passes everything to the transport's writer and records what the
/// writer did with it: bytes committed, flushes, when the output first reported a fault, bytes committed after that; and it
/// fires cancellation triggers armed for "the n-th flush after this call started".
/// </summary>
internal sealed class ObservedOutput(PipeWriter inner, Func<TimeSpan> clock) : PipeWriter
{
    private readonly object _gate = new();
    private readonly List<(long AtFlush, CancellationTokenSource Source)> _triggers = [];
    private long _bytes;
    private long _flushes;
    private long _bytesAtFault = -1;

    /// <summary>Bytes the writer committed (Advance) so far.</summary>
    public long BytesWritten => Interlocked.Read(ref _bytes);

    /// <summary>Flushes the writer started so far.</summary>
    public long Flushes => Interlocked.Read(ref _flushes);

    /// <summary>When a flush first threw or reported the reader gone; null while the output is healthy.</summary>
    public TimeSpan? FaultObservedAt { get; private set; }

    /// <summary>Bytes committed after the fault was reported.</summary>
    public long BytesWrittenAfterFault => FaultObservedAt is null ? 0 : BytesWritten - Interlocked.Read(ref _bytesAtFault);

    /// <summary>Arms <paramref name="source"/> to be cancelled when the writer starts its <paramref name="flushesFromNow"/>-th flush from now.</summary>
    public void CancelOnFlush(CancellationTokenSource source, int flushesFromNow)
    {
        lock (_gate) _triggers.Add((Flushes + flushesFromNow, source));
    }

    /// <summary>Disarms <paramref name="source"/> (its call has completed).</summary>
    public void Disarm(CancellationTokenSource source)
    {
        lock (_gate) _triggers.RemoveAll(t => t.Source == source);
    }

    public override void Advance(int bytes)
    {
        inner.Advance(bytes);
        Interlocked.Add(ref _bytes, bytes);
    }

    public override Memory<byte> GetMemory(int sizeHint = 0) => inner.GetMemory(sizeHint);

    public override Span<byte> GetSpan(int sizeHint = 0) => inner.GetSpan(sizeHint);

    public override void CancelPendingFlush() => inner.CancelPendingFlush();

    public override bool CanGetUnflushedBytes => inner.CanGetUnflushedBytes;

    public override long UnflushedBytes => inner.UnflushedBytes;

    public override void Complete(Exception? exception = null) => inner.Complete(exception);

    public override async ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default)
    {
        long n = Interlocked.Increment(ref _flushes);
        FireTriggers(n);
        try
        {
            var result = await inner.FlushAsync(cancellationToken).ConfigureAwait(false);
            if (result.IsCompleted) NoteFault();
            return result;
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            throw;
        }
        catch
        {
            NoteFault();
            throw;
        }
    }

    private void FireTriggers(long flush)
    {
        List<CancellationTokenSource>? fire = null;
        lock (_gate)
        {
            for (int i = _triggers.Count - 1; i >= 0; i--)
            {
                if (_triggers[i].AtFlush > flush) continue;
                (fire ??= []).Add(_triggers[i].Source);
                _triggers.RemoveAt(i);
            }
        }
        if (fire is null) return;
        foreach (var source in fire)
        {
            // The call may have completed (and its source been disposed) since the trigger was taken: then there is nothing to cancel.
            try { source.Cancel(); }
            catch (ObjectDisposedException) { }
        }
    }

    private void NoteFault()
    {
        lock (_gate)
        {
            if (FaultObservedAt is not null) return;
            Interlocked.Exchange(ref _bytesAtFault, BytesWritten);
            FaultObservedAt = clock();
        }
    }
}
