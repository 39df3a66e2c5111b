namespace AmqpConformance.Properties.Running;

/// <summary>A body owner handed to the writer with a command (PR #1913 style): counts its disposals, notes how many bytes the
/// writer had output at the first one, and only then gives the caller's array back to its pool (which poisons it).</summary>
internal sealed class TrackedBodyOwner(Func<long> outputBytes, Action release) : IDisposable
{
    private int _disposals;

    public int Disposals => Volatile.Read(ref _disposals);

    public long? DisposedAtOutputBytes { get; private set; }

    public void Dispose()
    {
        if (Interlocked.Increment(ref _disposals) != 1) return;
        DisposedAtOutputBytes = outputBytes();
        release();
    }
}
