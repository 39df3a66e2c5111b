using System.Diagnostics;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Running;
using AmqpConformance.Toxiproxy;

namespace AmqpConformance.Properties.Clients;

/// <summary>A stall at client level: the fault proxy stops forwarding (and reading) the client's bytes, so the client's
/// socket buffers and then its own write queue fill, until the client stops making progress; then the stall ends and
/// everything drains. The nearest a TCP proxy gets to holding a client's flushes.</summary>
internal sealed class ProxyStall(FaultProxy proxy)
{
    private static readonly TimeSpan Quiet = TimeSpan.FromMilliseconds(200);
    private long _progress;
    private IDisposable? _stall;

    /// <summary>The longest the stall is held.</summary>
    public TimeSpan Limit { get; } = TimeSpan.FromSeconds(3);

    /// <summary>Whether the proxy is stalling now.</summary>
    public bool IsStalled => Volatile.Read(ref _stall) is not null;

    /// <summary>Starts stalling.</summary>
    public void Begin() => Volatile.Write(ref _stall, proxy.Stall());

    /// <summary>Counts a completed call.</summary>
    public void NoteProgress() => Interlocked.Increment(ref _progress);

    /// <summary>Holds the stall until no call completed for a while (the client is blocked) or <see cref="Limit"/>
    /// passed, then ends it, counting a stall with calls in flight.</summary>
    public async Task HoldUntilQuietAsync(Task publishers, IEnumerable<CallTrace> traces, RunEvents events)
    {
        var limit = Stopwatch.StartNew();
        var quiet = Stopwatch.StartNew();
        long last = -1;
        while (!publishers.IsCompleted && limit.Elapsed < Limit)
        {
            long now = Interlocked.Read(ref _progress);
            if (now != last)
            {
                last = now;
                quiet.Restart();
            }
            else if (quiet.Elapsed >= Quiet)
                break;
            await Task.Delay(10).ConfigureAwait(false);
        }
        int pending = traces.Count(t => t.Attempted && t.Outcome == CallOutcome.Pending);
        if (pending > 0)
            events.Add(RunEvent.StallDuringFlush);
        if (pending > 1)
            events.Add(RunEvent.QueueFull);
        End();
    }

    /// <summary>Ends the stall (once).</summary>
    public void End() => Interlocked.Exchange(ref _stall, null)?.Dispose();
}
