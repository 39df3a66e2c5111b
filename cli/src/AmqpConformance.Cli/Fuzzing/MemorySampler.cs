namespace AmqpConformance.Cli.Fuzzing;

/// <summary>Samples the process's resident set every 100 ms while it lives and keeps the peak.</summary>
internal sealed class MemorySampler : IAsyncDisposable
{
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private long _peak = Environment.WorkingSet;

    public MemorySampler() => _loop = SampleAsync();

    public long Peak => Math.Max(Interlocked.Read(ref _peak), Environment.WorkingSet);

    private async Task SampleAsync()
    {
        try
        {
            while (true)
            {
                long now = Environment.WorkingSet;
                if (now > Interlocked.Read(ref _peak))
                    Interlocked.Exchange(ref _peak, now);
                await Task.Delay(100, _stop.Token).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) { } // the sampler was stopped: that is how it ends
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        await _loop.ConfigureAwait(false);
        _stop.Dispose();
    }
}
