using System.Buffers;

namespace AmqpConformance.Properties.Running;

/// <summary>A body owner handed to the writer with a command (PR #1913 style): counts its disposals, notes how many
/// bytes the writer had output at the first one, and only then gives the caller's array back to its pool (which poisons
/// it). It is an <see cref="IMemoryOwner{T}"/> of the caller's whole rented array, as a rented buffer handed over with
/// a publish is, and the body is a slice of it (at the step's slice offset), not necessarily its start: a writer that
/// frames the owner's memory instead of the command's body shows, as it could not behind a plain
/// IDisposable.</summary>
internal sealed class TrackedBodyOwner(Func<long> outputBytes, Action release, Memory<byte> memory) : IMemoryOwner<byte>
{
    private int _disposals;

    /// <summary>The caller's whole rented array (the body is a slice of it).</summary>
    public Memory<byte> Memory => memory;

    public int Disposals => Volatile.Read(ref _disposals);

    public long? DisposedAtOutputBytes { get; private set; }

    public void Dispose()
    {
        if (Interlocked.Increment(ref _disposals) != 1)
            return;
        DisposedAtOutputBytes = outputBytes();
        release();
    }
}
