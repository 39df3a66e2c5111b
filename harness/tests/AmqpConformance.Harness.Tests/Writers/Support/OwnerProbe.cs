namespace AmqpConformance.Harness.Tests.Writers.Support;

/// <summary>A body owner that counts its disposals and remembers how many bytes the output had received at the
/// first.</summary>
public sealed class OwnerProbe(Func<long>? bytesWritten = null) : IDisposable
{
    private int _disposals;

    public int Disposals => Volatile.Read(ref _disposals);

    /// <summary>The output's byte count when this owner was first disposed; -1 before.</summary>
    public long BytesWrittenAtDispose { get; private set; } = -1;

    public void Dispose()
    {
        if (Interlocked.Increment(ref _disposals) == 1)
            BytesWrittenAtDispose = bytesWritten?.Invoke() ?? 0;
    }
}
