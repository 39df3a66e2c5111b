using System.IO.Pipelines;

namespace AmqpConformance.Harness.Interleavings.Tests.Support;

/// <summary>
/// An output for interleaving tests: its first flush stalls until <see cref="Resume"/>, its flush number
/// <see cref="FailOnFlush"/> fails, and every use of it after that failure (GetMemory, GetSpan, Advance, FlushAsync) is
/// counted. Built on tasks only, so that Coyote controls every wait in it; bytes go into a growing array
/// (<see cref="Written"/>).
/// </summary>
public sealed class StallThenFailOutput : PipeWriter
{
    private readonly TaskCompletionSource _resume = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _firstFlushStarted = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _failed = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private byte[] _buffer = new byte[4096];
    private int _written;
    private int _flushes;
    private int _hasFailed;
    private int _usesAfterFailure;

    /// <summary>The flush (1-based) that fails; 2 by default, <see cref="int.MaxValue"/> for none.</summary>
    public int FailOnFlush { get; init; } = 2;

    /// <summary>Whether the failing flush returns a task that faults later (the writer resumes on another task) rather
    /// than throwing from the call.</summary>
    public bool FailsLater { get; init; }

    /// <summary>Completes when the first flush has started (and stalled).</summary>
    public Task FirstFlushStarted => _firstFlushStarted.Task;

    /// <summary>Completes when the failing flush has been called.</summary>
    public Task Failed => _failed.Task;

    /// <summary>Whether the failing flush has been called.</summary>
    public bool HasFailed => Volatile.Read(ref _hasFailed) != 0;

    /// <summary>Uses of the output after the failing flush was called.</summary>
    public int UsesAfterFailure => Volatile.Read(ref _usesAfterFailure);

    /// <summary>A copy of every byte written so far.</summary>
    public byte[] Written() => _buffer.AsSpan(0, _written).ToArray();

    /// <summary>Lets the stalled first flush complete successfully.</summary>
    public void Resume() => _resume.TrySetResult();

    /// <inheritdoc />
    public override void Advance(int bytes)
    {
        NoteUse();
        _written += bytes;
    }

    /// <inheritdoc />
    public override Memory<byte> GetMemory(int sizeHint = 0)
    {
        NoteUse();
        int needed = _written + Math.Max(sizeHint, 1);
        if (needed > _buffer.Length)
            Array.Resize(ref _buffer, Math.Max(needed, _buffer.Length * 2));
        return _buffer.AsMemory(_written);
    }

    /// <inheritdoc />
    public override Span<byte> GetSpan(int sizeHint = 0) => GetMemory(sizeHint).Span;

    /// <inheritdoc />
    public override void CancelPendingFlush() { }

    /// <inheritdoc />
    public override void Complete(Exception? exception = null) { }

    /// <inheritdoc />
    public override ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default)
    {
        NoteUse();
        int flush = Interlocked.Increment(ref _flushes);
        if (flush == FailOnFlush)
        {
            Volatile.Write(ref _hasFailed, 1);
            _failed.TrySetResult();
            var failure = new IOException($"injected failure of flush {flush}");
            if (FailsLater)
                return new ValueTask<FlushResult>(FailLaterAsync(failure));
            throw failure;
        }
        if (flush == 1)
        {
            _firstFlushStarted.TrySetResult();
            return new ValueTask<FlushResult>(StalledFlushAsync());
        }
        return new ValueTask<FlushResult>(new FlushResult(isCanceled: false, isCompleted: false));
    }

    private async Task<FlushResult> StalledFlushAsync()
    {
        await _resume.Task.ConfigureAwait(false);
        return new FlushResult(isCanceled: false, isCompleted: false);
    }

    private static async Task<FlushResult> FailLaterAsync(Exception failure)
    {
        await Task.Yield();
        throw failure;
    }

    private void NoteUse()
    {
        if (HasFailed)
            Interlocked.Increment(ref _usesAfterFailure);
    }
}
