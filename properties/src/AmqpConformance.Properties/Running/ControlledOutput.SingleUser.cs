namespace AmqpConformance.Properties.Running;

/// <content>One user at a time: a <see cref="System.IO.Pipelines.PipeWriter"/> is not thread-safe, so a writer must not
/// be inside the output on two threads at once (getting memory, advancing, starting a flush), nor start a flush while
/// an earlier flush of its own is still pending. The output notes the first time either happens
/// (<see cref="ConcurrentUse"/>); the no-interleaving invariant judges it. On a real pipe the same overlap mixes frames
/// of different commands or breaks the pipe's own state (a writer that flushes outside its lock can make the harness's
/// transport pump throw).</content>
internal sealed partial class ControlledOutput
{
    private int _users;
    private string? _concurrentUse;

    /// <summary>What the writer did the first time it used the output from two threads at once, or started a flush
    /// while an earlier one was pending, and when; null if it never did.</summary>
    public string? ConcurrentUse
    {
        get
        {
            lock (_gate)
                return _concurrentUse;
        }
    }

    private void EnterUse(string what)
    {
        if (Interlocked.Increment(ref _users) > 1)
            NoteConcurrentUse($"{what} on one thread while another thread was inside the output");
    }

    private void ExitUse() => Interlocked.Decrement(ref _users);

    private void NoteConcurrentUse(string what)
    {
        var at = _clock();
        lock (_gate)
            _concurrentUse ??= $"{what} (at {at.TotalMilliseconds:0.###} ms)";
    }
}
