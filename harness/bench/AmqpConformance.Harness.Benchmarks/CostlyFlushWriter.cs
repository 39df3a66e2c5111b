using System.Diagnostics;
using System.IO.Pipelines;

namespace AmqpConformance.Harness.Benchmarks;

/// <summary>A <see cref="PipeWriter"/> around another whose every flush first burns a fixed CPU time, standing in
/// for the send() system call a socket flush costs; everything else is passed through.</summary>
internal sealed class CostlyFlushWriter(PipeWriter inner, TimeSpan flushCost) : PipeWriter
{
    public override void Advance(int bytes) => inner.Advance(bytes);

    public override Memory<byte> GetMemory(int sizeHint = 0) => inner.GetMemory(sizeHint);

    public override Span<byte> GetSpan(int sizeHint = 0) => inner.GetSpan(sizeHint);

    public override void CancelPendingFlush() => inner.CancelPendingFlush();

    public override void Complete(Exception? exception = null) => inner.Complete(exception);

    public override ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default)
    {
        long until = Stopwatch.GetTimestamp() + (long)(flushCost.TotalSeconds * Stopwatch.Frequency);
        while (Stopwatch.GetTimestamp() < until)
            Thread.SpinWait(20);
        return inner.FlushAsync(cancellationToken);
    }
}
