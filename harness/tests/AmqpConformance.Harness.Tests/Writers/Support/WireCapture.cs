using System.IO.Pipelines;

namespace AmqpConformance.Harness.Tests.Writers.Support;

/// <summary>A pipe whose reader side copies every byte into memory on a background task; can be paused to stall
/// the writer side (flushes then block once more than the pause threshold is unread).</summary>
public sealed class WireCapture : IAsyncDisposable
{
    private readonly Pipe _pipe;
    private readonly MemoryStream _bytes = new();
    private readonly object _gate = new();
    private readonly Task _drain;
    private readonly CancellationTokenSource _abort = new();
    private TaskCompletionSource _running = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public WireCapture(
        long pauseWriterThreshold = 64 * 1024,
        bool startPaused = false,
        bool completeReaderAtOnce = false
    )
    {
        _pipe = new Pipe(
            new PipeOptions(
                pauseWriterThreshold: pauseWriterThreshold,
                resumeWriterThreshold: Math.Max(1, pauseWriterThreshold / 2),
                useSynchronizationContext: false
            )
        );
        Writer = new TestPipeWriter(_pipe.Writer);
        if (!startPaused)
            _running.SetResult();
        if (completeReaderAtOnce)
        {
            _pipe.Reader.Complete();
            _drain = Task.CompletedTask;
        }
        else
        {
            _drain = Task.Run(DrainAsync);
        }
    }

    public TestPipeWriter Writer { get; }

    public void Pause()
    {
        lock (_gate)
            if (_running.Task.IsCompleted)
                _running = new(TaskCreationOptions.RunContinuationsAsynchronously);
    }

    public void Resume()
    {
        lock (_gate)
            _running.TrySetResult();
    }

    public long Received
    {
        get
        {
            lock (_bytes)
                return _bytes.Length;
        }
    }

    public byte[] Snapshot()
    {
        lock (_bytes)
            return _bytes.ToArray();
    }

    /// <summary>Completes the writer side, lets the reader take everything, and returns all bytes.</summary>
    public async Task<byte[]> CompleteAsync(TimeSpan? timeout = null)
    {
        Resume();
        await _pipe.Writer.CompleteAsync();
        await _drain.WaitAsync(timeout ?? TimeSpan.FromSeconds(10));
        return Snapshot();
    }

    private async Task DrainAsync()
    {
        var reader = _pipe.Reader;
        try
        {
            while (true)
            {
                Task gate;
                lock (_gate)
                    gate = _running.Task;
                await gate.WaitAsync(_abort.Token);
                var result = await reader.ReadAsync(_abort.Token);
                foreach (var segment in result.Buffer)
                    lock (_bytes)
                        _bytes.Write(segment.Span);
                reader.AdvanceTo(result.Buffer.End);
                if (result.IsCompleted)
                    break;
            }
        }
        catch (OperationCanceledException) { } // aborted by DisposeAsync: the bytes read so far are the capture
        await reader.CompleteAsync();
    }

    public async ValueTask DisposeAsync()
    {
        Resume();
        _abort.Cancel();
        try
        {
            await _drain.WaitAsync(TimeSpan.FromSeconds(5));
        }
        catch (Exception) { } // a drain that did not stop within 5 s, or failed: disposal comes after the asserts
        _abort.Dispose();
    }
}
