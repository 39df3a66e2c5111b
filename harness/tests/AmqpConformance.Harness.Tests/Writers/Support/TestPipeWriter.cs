using System.IO.Pipelines;

namespace AmqpConformance.Harness.Tests.Writers.Support;

/// <summary>A <see cref="PipeWriter"/> around another that counts bytes and flushes, can fail on a chosen flush or
/// after a number of bytes, runs a hook before each flush, and notices any use after it failed.</summary>
public sealed class TestPipeWriter(PipeWriter inner) : PipeWriter
{
    private long _written;
    private int _flushes;
    private int _failed;
    private long _usesAfterFailure;

    /// <summary>Throw an <see cref="InjectedFault"/> from this flush (1-based), or never.</summary>
    public int? FailOnFlush { get; set; }

    /// <summary>Throw an <see cref="InjectedFault"/> from GetMemory/GetSpan once this many bytes were written, or
    /// never.</summary>
    public long? FailAfterBytes { get; set; }

    /// <summary>Called with the flush number (1-based) before each flush is passed on.</summary>
    public Action<int>? BeforeFlush { get; set; }

    public long BytesWritten => Interlocked.Read(ref _written);
    public int Flushes => Volatile.Read(ref _flushes);
    public bool HasFailed => Volatile.Read(ref _failed) != 0;

    /// <summary>Calls of GetMemory/GetSpan/Advance/FlushAsync after the injected failure.</summary>
    public long UsesAfterFailure => Interlocked.Read(ref _usesAfterFailure);

    public override void Advance(int bytes)
    {
        NoteUse();
        Interlocked.Add(ref _written, bytes);
        inner.Advance(bytes);
    }

    public override Memory<byte> GetMemory(int sizeHint = 0)
    {
        NoteUse();
        CheckBytes();
        return inner.GetMemory(sizeHint);
    }

    public override Span<byte> GetSpan(int sizeHint = 0)
    {
        NoteUse();
        CheckBytes();
        return inner.GetSpan(sizeHint);
    }

    public override ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default)
    {
        NoteUse();
        int n = Interlocked.Increment(ref _flushes);
        BeforeFlush?.Invoke(n);
        if (FailOnFlush == n)
        {
            Volatile.Write(ref _failed, 1);
            return ValueTask.FromException<FlushResult>(new InjectedFault($"injected failure on flush #{n}"));
        }
        return inner.FlushAsync(cancellationToken);
    }

    public override void CancelPendingFlush() => inner.CancelPendingFlush();

    public override void Complete(Exception? exception = null) => inner.Complete(exception);

    private void CheckBytes()
    {
        if (FailAfterBytes is { } limit && BytesWritten >= limit && !HasFailed)
        {
            Volatile.Write(ref _failed, 1);
            throw new InjectedFault($"injected failure after {BytesWritten} bytes");
        }
    }

    private void NoteUse()
    {
        if (HasFailed)
            Interlocked.Increment(ref _usesAfterFailure);
    }
}

/// <summary>The exception a <see cref="TestPipeWriter"/> throws on purpose.</summary>
public sealed class InjectedFault(string message) : IOException(message);
