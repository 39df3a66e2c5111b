using System.IO.Pipelines;
using System.Threading.Tasks.Sources;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// The pending flush <see cref="ControlledOutput"/> hands a writer: a source that, like a real <see cref="Pipe"/>'s,
/// may be consumed once. A pipe backs its flushes with one reused source, so a writer that awaits a flush a second time
/// (its disposal awaiting the flush its pending call is already awaiting, say) breaks the pipe: a second continuation
/// throws "concurrent reads or writes are not supported", and the first awaiter's result is lost. Over a harness output
/// built on ordinary tasks the same writer would pass; over this one, both consumers get an
/// <see cref="InvalidOperationException"/> that says what happened, and the call whose flush it was fails although its
/// bytes went out, which the cancellation invariant reports (<c>ghost-after-failure</c>).
/// </summary>
internal sealed class SingleConsumerFlush : IValueTaskSource<FlushResult>
{
    private ManualResetValueTaskSourceCore<FlushResult> _core = new() { RunContinuationsAsynchronously = true };
    private int _continuations;
    private int _results;
    private int _misused;

    private SingleConsumerFlush() { }

    /// <summary>A single-consumer view of <paramref name="flush"/>, which has not completed yet.</summary>
    public static ValueTask<FlushResult> Wrap(ValueTask<FlushResult> flush)
    {
        var source = new SingleConsumerFlush();
        _ = source.CompleteFromAsync(flush);
        return new ValueTask<FlushResult>(source, source._core.Version);
    }

    private async Task CompleteFromAsync(ValueTask<FlushResult> flush)
    {
        try
        {
            _core.SetResult(await flush.ConfigureAwait(false));
        }
        catch (Exception ex)
        {
            _core.SetException(ex);
        }
    }

    /// <inheritdoc />
    public FlushResult GetResult(short token)
    {
        if (Interlocked.Increment(ref _results) > 1 || Volatile.Read(ref _misused) != 0)
        {
            Volatile.Write(ref _misused, 1);
            throw Misuse("its result was taken twice");
        }
        return _core.GetResult(token);
    }

    /// <inheritdoc />
    public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

    /// <inheritdoc />
    public void OnCompleted(
        Action<object?> continuation,
        object? state,
        short token,
        ValueTaskSourceOnCompletedFlags flags
    )
    {
        if (Interlocked.Increment(ref _continuations) > 1)
        {
            Volatile.Write(ref _misused, 1);
            throw Misuse("it was awaited twice at once");
        }
        _core.OnCompleted(continuation, state, token, flags);
    }

    private static InvalidOperationException Misuse(string how) =>
        new(
            $"The writer consumed one FlushAsync ValueTask more than once ({how}). A ValueTask may be awaited once; a socket's pipe "
                + "backs every flush with one reused source, so there this corrupts the flush (concurrent reads or writes are not supported)."
        );
}
