using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Running;

/// <summary>Disposes a case's writer when the script or the end of the run says so (once, or twice as the scenario's
/// <see cref="Scenarios.Scenario.SecondDisposal"/> says: after the first call returned, or alongside it), and records the timeline
/// the lifecycle invariant judges: when DisposeAsync was invoked and when it (every call of it) completed, which calls were pending
/// then, what a second call threw, and the bytes written after disposal completed.</summary>
/// <remarks>When the harness keeps the output stalled through disposal, the writer's drain timeout can only expire: the harness then
/// lets the writer settle and moves the case's clock to the writer's next timer (<see cref="CaseClock.TrySkipToNextTimer"/>) instead
/// of waiting for it in real time; the bound is judged on the case's clock, which never runs slower than real time.</remarks>
internal sealed class CaseLifecycle(WriterCase world, CaseObserver observer)
{
    private Task? _disposal;
    private TimeSpan? _invokedAt;
    private TimeSpan? _returnedAt;
    private IReadOnlyList<int> _pending = [];
    private bool _timedOut;
    private string? _firstFailure;
    private string? _secondFailure;

    /// <summary>Whether disposal has begun.</summary>
    public bool Begun => _disposal is not null;

    /// <summary>How long the harness waits for DisposeAsync: twice the writer's drain timeout plus a margin.</summary>
    public TimeSpan Bound => 2 * world.Context.DrainTimeout + world.Options.DisposeMargin;

    /// <summary>Invokes DisposeAsync (and the scenario's second call, if any) without waiting for it; does nothing once begun.</summary>
    public void Begin()
    {
        if (_disposal is not null) return;
        NotePending(racing: null);
        Invoke();
    }

    /// <summary>Disposal that races <paramref name="racing"/>'s start: what <see cref="Begin"/> notes about the calls pending is
    /// noted now (the racing call counted among them), and the returned action invokes DisposeAsync, with nothing else left to do
    /// on the racing thread, so disposal reaches the writer within a few instructions of being let go. Null once begun.</summary>
    public Action? PrepareRacing(CallTrace racing)
    {
        if (_disposal is not null) return null;
        NotePending(racing);
        return Invoke;
    }

    /// <summary>Notes the calls pending as disposal begins (and <paramref name="racing"/>, a call starting at that moment), and the
    /// events that makes.</summary>
    private void NotePending(CallTrace? racing)
    {
        var pending = world.AllTraces.Where(t => t.IsPending).ToList();
        _pending = [.. pending.Select(t => t.Id), .. racing is null || pending.Contains(racing) ? [] : new[] { racing.Id }];
        if (pending.Count > 0) world.Events.Add(RunEvent.DisposeWithParkedCalls);
        if (world.Output.IsFlushPending) world.Events.Add(RunEvent.DisposeDuringFlush);
    }

    private void Invoke()
    {
        if (_disposal is not null) return;
        // Read before DisposeAsync is invoked: a call it ends synchronously (one racing it, say) must not seem to have ended
        // before disposal began.
        _invokedAt = world.Clock;
        Task disposal = First(InvokeDispose());
        switch (world.Scenario.SecondDisposal)
        {
            case SecondDisposal.Concurrent:
                disposal = Task.WhenAll(disposal, Second(InvokeDispose()));
                break;
            case SecondDisposal.AfterFirst:
                disposal = SecondAfterAsync(disposal);
                break;
        }
        _disposal = disposal.ContinueWith(_ =>
        {
            _returnedAt = world.Clock;
            world.Output.MarkDisposeReturned();
        }, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }

    /// <summary>Calls the writer's DisposeAsync; one that throws synchronously becomes a failed task (what it left behind is still
    /// judged).</summary>
    private Task InvokeDispose()
    {
        try
        {
            return world.Writer!.DisposeAsync().AsTask();
        }
        catch (Exception ex)
        {
            return Task.FromException(ex);
        }
    }

    /// <summary>The first call's task, recording what it threw (a connection's close path calls DisposeAsync and must not get an
    /// exception back, not even the transport failure that stopped the writer).</summary>
    private async Task First(Task first) => _firstFailure = await FailureOf(first).ConfigureAwait(false);

    /// <summary>The second call's task, recording what it threw.</summary>
    private async Task Second(Task second)
    {
        world.Events.Add(RunEvent.DisposeTwice);
        _secondFailure = await FailureOf(second).ConfigureAwait(false);
    }

    /// <summary>What <paramref name="disposal"/> threw (type and message), or null once it returned normally.</summary>
    private static async Task<string?> FailureOf(Task disposal)
    {
        try
        {
            await disposal.ConfigureAwait(false);
            return null;
        }
        catch (Exception ex)
        {
            return $"{ex.GetType().Name}: {ex.Message}";
        }
    }

    /// <summary>The first call, then (however it ended) the second.</summary>
    private async Task SecondAfterAsync(Task first)
    {
        try
        {
            await first.ConfigureAwait(false);
        }
        finally
        {
            await Second(InvokeDispose()).ConfigureAwait(false);
        }
    }

    /// <summary>Waits (bounded by <see cref="Bound"/> on the case's clock) for DisposeAsync to complete; begins it first if need be.</summary>
    public async Task AwaitAsync()
    {
        Begin();
        if (world.StallsThroughDispose)
        {
            await AwaitStalledAsync().ConfigureAwait(false);
            return;
        }
        if (!await BoundedWait.CompletesWithinAsync(_disposal!, Bound).ConfigureAwait(false)) _timedOut = true;
    }

    /// <summary>The output accepts no flush, so only the writer's own timers can end its disposal: each time the writer has settled,
    /// the case's clock moves to its next timer; with none armed, the rest of the bound is waited in real time. A writer still
    /// busy when a settle gives up (writing a large command into the output, slowed by timing noise on a loaded machine) is not
    /// waiting for a timer: the clock stays, and the harness settles again. Moving it then fired the writer's drain timeout in the
    /// middle of a command, and its give-up wait (real time) ran out before the command was written: CI's load made a correct
    /// writer (Zoo:PooledCompletion, a 1.1 MB body, noise on) write after its disposal returned. Nor is a writer that stopped in
    /// the middle of a command with no flush pending: a settle comes out quiet while its thread is off the CPU, but it has the rest
    /// of the command to write before it can wait for anything, so the clock stays until the output changes. (This covers drain
    /// timers longer than the thread's time off the CPU; the harness's own 25 ms one expires by real time anyway, and then the
    /// writer's real-time give-up wait is what covers it.)</summary>
    private async Task AwaitStalledAsync()
    {
        while (!_disposal!.IsCompleted)
        {
            var left = Bound - (world.Clock - _invokedAt!.Value);
            if (left <= TimeSpan.Zero)
            {
                _timedOut = true;
                return;
            }
            bool settled = await observer.SettleAsync().ConfigureAwait(false);
            if (_disposal.IsCompleted) return;
            if (!settled) continue;
            var changed = world.Output.WhenChanged;
            if (world.Output.IsMidCommand && !world.Output.IsFlushPending)
            {
                // Wait for the writer to commit more (or for disposal to end) rather than settle again and again beside it.
                await BoundedWait.CompletesWithinAsync(Task.WhenAny(changed, _disposal), left).ConfigureAwait(false);
                continue;
            }
            if (world.Time.TrySkipToNextTimer(Bound - (world.Clock - _invokedAt.Value))) continue;
            await BoundedWait.CompletesWithinAsync(_disposal, left).ConfigureAwait(false);
        }
    }

    /// <summary>The record for the evidence: a disposal that outlived its bound counts as not completed, even if it completed later
    /// (once the harness let a stalled output go).</summary>
    public LifecycleRecord Record() =>
        new(_invokedAt, _disposal is { IsCompleted: true } && !_timedOut ? _returnedAt : null, Bound, _pending, world.Output.BytesWrittenAfterDispose,
            world.StallsThroughDispose)
        {
            SecondDisposal = world.Scenario.SecondDisposal switch
            {
                SecondDisposal.AfterFirst => "after the first returned",
                SecondDisposal.Concurrent => "alongside the first",
                _ => null,
            },
            FirstDisposalFailure = Volatile.Read(ref _firstFailure),
            SecondDisposalFailure = Volatile.Read(ref _secondFailure),
            FlushesAfterDispose = world.Output.FlushesAfterDispose,
            FlushPendingWhenDisposeReturned = world.Output.FlushPendingAtDispose,
            OutputCompletedByWriterAt = world.Output.CompletedByWriterAt,
        };
}
