using System.Diagnostics;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Running;
using AmqpConformance.Toxiproxy;

namespace AmqpConformance.Properties.Clients;

/// <summary>A stall at client level: the fault proxy stops forwarding and reading the client's bytes, so the client's
/// socket buffers and then its own write queue fill, until the client stops making progress (a socket write blocked
/// part-way); then the cancellations "on a flush" are fired (<see cref="CancelWhenBlocked"/>), and the stall ends and
/// everything drains. The nearest a TCP proxy gets to holding a client's flushes.</summary>
internal sealed class ProxyStall(FaultProxy proxy)
{
    private static readonly TimeSpan Quiet = TimeSpan.FromMilliseconds(200);
    private static readonly TimeSpan CancelGrace = TimeSpan.FromMilliseconds(500);
    private readonly object _gate = new();
    private readonly List<(CancellationTokenSource Source, Task Call)> _toCancel = [];
    private bool _cancelled;
    private long _progress;
    private IDisposable? _stall;

    /// <summary>The longest the stall is held.</summary>
    public TimeSpan Limit { get; } = TimeSpan.FromSeconds(3);

    /// <summary>Whether the proxy is stalling now.</summary>
    public bool IsStalled => Volatile.Read(ref _stall) is not null;

    /// <summary>Starts stalling.</summary>
    public void Begin() => Volatile.Write(ref _stall, proxy.Stall());

    /// <summary>Takes <paramref name="source"/>, the token source of <paramref name="call"/>, to cancel once the client
    /// is blocked (when the stall found it quiet, or at its limit), so that the cancellation lands while the client's
    /// flush is pending, its socket write stuck part-way. False when that moment has passed or there is no stall in
    /// force: the caller cancels it now.</summary>
    public bool CancelWhenBlocked(CancellationTokenSource source, Task call)
    {
        lock (_gate)
        {
            if (_cancelled || !IsStalled)
                return false;
            _toCancel.Add((source, call));
            return true;
        }
    }

    /// <summary>Counts a completed call.</summary>
    public void NoteProgress() => Interlocked.Increment(ref _progress);

    /// <summary>Holds the stall until no call completed for a while since one was made (the client is blocked) or
    /// <see cref="Limit"/> passed, counting a stall with calls in flight; then fires the cancellations taken by
    /// <see cref="CancelWhenBlocked"/>, gives their calls a moment to end (up to <see cref="CancelGrace"/>, so the
    /// client sees the cancellation while still blocked), and ends the stall.</summary>
    public async Task HoldUntilQuietAsync(Task publishers, IEnumerable<CallTrace> traces, RunEvents events)
    {
        var limit = Stopwatch.StartNew();
        var quiet = Stopwatch.StartNew();
        long last = -1;
        while (!publishers.IsCompleted && limit.Elapsed < Limit)
        {
            long now = Interlocked.Read(ref _progress);
            // Quiet is counted from the first call made: a loaded machine that starts the publishers late has not
            // blocked the client yet.
            if (now != last || !traces.Any(t => t.Attempted))
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
        await CancelBlockedCallsAsync().ConfigureAwait(false);
        End();
    }

    private async Task CancelBlockedCallsAsync()
    {
        List<(CancellationTokenSource Source, Task Call)> taken;
        lock (_gate)
        {
            _cancelled = true;
            taken = [.. _toCancel];
        }
        foreach (var (source, _) in taken)
        {
            try
            {
                source.Cancel();
            }
            catch (ObjectDisposedException) { } // the call completed and its source was disposed: nothing to cancel
        }
        // Not a verdict: a call still pending when this runs out (a client whose flush is not cancellable) simply sees
        // its cancellation after the stall. Counted in time the process could run, so a loaded machine does not end the
        // stall before the client has seen the cancellation.
        await BoundedWait
            .CompletesWithinRunnableAsync(Task.WhenAll(taken.Select(t => t.Call)), CancelGrace)
            .ConfigureAwait(false);
    }

    /// <summary>Ends the stall (once).</summary>
    public void End() => Interlocked.Exchange(ref _stall, null)?.Dispose();
}
