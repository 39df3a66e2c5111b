using System.IO.Pipelines;

namespace AmqpConformance.Harness.Benchmarks;

/// <summary>An in-memory output: a pipe whose reader drains and discards everything on another task, counting
/// bytes.</summary>
internal sealed class DiscardingSink : IAsyncDisposable
{
    private readonly Pipe _pipe = new(
        new PipeOptions(
            pauseWriterThreshold: 1 << 20,
            resumeWriterThreshold: 1 << 19,
            minimumSegmentSize: 64 * 1024,
            useSynchronizationContext: false
        )
    );
    private readonly Task _drain;
    private long _bytes;

    /// <param name="flushCost">CPU time each flush burns (a stand-in for a socket's send call); zero for none.</param>
    public DiscardingSink(TimeSpan flushCost = default)
    {
        Writer = flushCost > TimeSpan.Zero ? new CostlyFlushWriter(_pipe.Writer, flushCost) : _pipe.Writer;
        _drain = Task.Run(DrainAsync);
    }

    public PipeWriter Writer { get; }

    public long BytesReceived => Interlocked.Read(ref _bytes);

    private async Task DrainAsync()
    {
        var reader = _pipe.Reader;
        while (true)
        {
            var result = await reader.ReadAsync().ConfigureAwait(false);
            Interlocked.Add(ref _bytes, result.Buffer.Length);
            reader.AdvanceTo(result.Buffer.End);
            if (result.IsCompleted)
                break;
        }
        await reader.CompleteAsync().ConfigureAwait(false);
    }

    public async ValueTask DisposeAsync()
    {
        await _pipe.Writer.CompleteAsync().ConfigureAwait(false);
        await _drain.ConfigureAwait(false);
    }
}
