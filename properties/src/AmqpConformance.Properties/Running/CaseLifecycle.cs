using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Running;

/// <summary>Disposes a case's writer when the script or the end of the run says so (once, or twice as the scenario's
/// <see cref="Scenarios.Scenario.SecondDisposal"/> says: after the first call returned, or alongside it), and records
/// the timeline the lifecycle invariant judges: when DisposeAsync was invoked and when it (every call of it) completed,
/// which calls were pending then, what a second call threw, and the bytes written after disposal completed.</summary>
/// <remarks>When the harness keeps the output stalled through disposal, the writer's drain timeout can only expire: the
/// harness then lets the writer settle and moves the case's clock to the writer's next timer
/// (<see cref="CaseClock.TrySkipToNextTimer"/>) instead of waiting for it in real time; the bound is judged on the
/// case's clock, which never runs slower than real time.</remarks>
internal sealed class CaseLifecycle
{
    private readonly WriterCase world;
    private readonly CaseObserver observer;
    private Task? _disposal;
    private TimeSpan? _invokedAt;
    private TimeSpan? _returnedAt;
    private IReadOnlyList<int> _pending = [];
    private bool _timedOut;
    private long _invokedTimestamp;
    private long _returnedTimestamp;
    private TimeSpan? _realBound;
    private string? _firstFailure;
    private string? _secondFailure;

    /// <summary>Makes the disposal of <paramref name="world"/>'s writer and registers it as the case's
    /// (<see cref="WriterCase.Lifecycle"/>).</summary>
    public CaseLifecycle(WriterCase world, CaseObserver observer)
    {
        this.world = world;
        this.observer = observer;
        world.Lifecycle = this;
    }

    /// <summary>Whether disposal has begun.</summary>
    public bool Begun => _disposal is not null;

    /// <summary>Whether DisposeAsync (every call of it) has returned, however late.</summary>
    public bool HasReturned => Volatile.Read(ref _returnedTimestamp) != 0;

    /// <summary>How long the harness waits for DisposeAsync on the case's clock: twice the writer's drain timeout plus
    /// a margin.</summary>
    public TimeSpan Bound => 2 * world.Context.DrainTimeout + world.Options.DisposeMarginFor;

    /// <summary>When (a <see cref="System.Diagnostics.Stopwatch"/> timestamp) the real time that disposal is given
    /// beyond <see cref="Bound"/> runs out (the factory's
    /// <see cref="Harness.Writers.FrameWriterFactory.DisposeTimeout"/> from when disposal began), or null when disposal
    /// has not begun or the writer is held to <see cref="Bound"/> alone (<see cref="HungDisposals"/>).</summary>
    public long? RealTimeAllowanceEnds =>
        _realBound is { } real && _invokedTimestamp != 0 ? _invokedTimestamp + CaseClock.ToTicks(real) : null;

    /// <summary>Invokes DisposeAsync (and the scenario's second call, if any) without waiting for it; does nothing once
    /// begun.</summary>
    public void Begin()
    {
        if (_disposal is not null)
            return;
        NotePending(racing: null);
        Invoke();
    }

    /// <summary>Disposal that races <paramref name="racing"/>'s start: what <see cref="Begin"/> notes about the calls
    /// pending is noted now (the racing call counted among them), and the returned action invokes DisposeAsync, with
    /// nothing else left to do on the racing thread, so disposal reaches the writer within a few instructions of being
    /// let go. Null once begun.</summary>
    public Action? PrepareRacing(CallTrace racing)
    {
        if (_disposal is not null)
            return null;
        NotePending(racing);
        return Invoke;
    }

    /// <summary>Notes the calls pending as disposal begins (and <paramref name="racing"/>, a call starting at that
    /// moment), and the events that makes.</summary>
    private void NotePending(CallTrace? racing)
    {
        var pending = world.AllTraces.Where(t => t.IsPending).ToList();
        _pending =
        [
            .. pending.Select(t => t.Id),
            .. racing is null || pending.Contains(racing) ? [] : new[] { racing.Id },
        ];
        if (pending.Count > 0)
            world.Events.Add(RunEvent.DisposeWithParkedCalls);
        if (world.Output.IsFlushPending)
            world.Events.Add(RunEvent.DisposeDuringFlush);
    }

    private void Invoke()
    {
        if (_disposal is not null)
            return;
        // Read before DisposeAsync is invoked: a call it ends synchronously (one racing it, say) must not seem to have
        // ended before disposal began.
        _invokedAt = world.Clock;
        _realBound = HungDisposals.Includes(world.Factory) ? null : world.Factory.DisposeTimeout;
        _invokedTimestamp = System.Diagnostics.Stopwatch.GetTimestamp();
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
        _disposal = disposal.ContinueWith(
            _ =>
            {
                _returnedAt = world.Clock;
                Volatile.Write(ref _returnedTimestamp, System.Diagnostics.Stopwatch.GetTimestamp());
                world.Output.MarkDisposeReturned();
            },
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default
        );
    }

    /// <summary>Calls the writer's DisposeAsync; one that throws synchronously becomes a failed task (what it left
    /// behind is still judged).</summary>
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

    /// <summary>The first call's task, recording what it threw (a connection's close path calls DisposeAsync and must
    /// not get an exception back, not even the transport failure that stopped the writer).</summary>
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

    /// <summary>Waits for DisposeAsync to complete, until both of its bounds have passed: <see cref="Bound"/> on the
    /// case's clock and the factory's <see cref="Harness.Writers.FrameWriterFactory.DisposeTimeout"/> of real time
    /// (unless the writer is held to the first alone, <see cref="HungDisposals"/>); begins it first if need be. A
    /// disposal that outlives both is recorded as not completed, and its writer is held to the case clock's bound from
    /// then on.</summary>
    public async Task AwaitAsync()
    {
        Begin();
        // With the output stalled, only the writer's timers can end its disposal, so the case's clock moves to them
        // once it has settled. On a draining output a correct writer drains, and the clock is left alone: moving it
        // past a timer the writer arms while a thread of it is off the CPU would make it give up on calls it was about
        // to write. For a writer already proven broken (WriterRunOptions.ProvenRules: shrink candidates, later
        // properties), a drain timeout it waits out on a draining output (stranded calls, say) is moved past as well:
        // 10 s of real time per case otherwise.
        if (world.StallsThroughDispose || world.Options.ProvenRules.Count > 0)
            await AwaitStalledAsync().ConfigureAwait(false);
        else if (!await BoundedWait.CompletesWithinAsync(_disposal!, Max(Bound, RealLeft())).ConfigureAwait(false))
            _timedOut = true;
        if (_timedOut && _realBound is not null)
            HungDisposals.Add(world.Factory, world.Scenario.ToString());
    }

    /// <summary>For a call that outlived the call timeout: whether it ends with disposal. A call held by an output
    /// stalled through disposal can only end when the writer gives up, which a writer on timers of its own does within
    /// the real time disposal is given (the factory's DisposeTimeout); so while disposal runs within that allowance the
    /// call is waited for too, and once disposal returned, for <see cref="WriterRunOptions.DisposeMargin"/> more. False
    /// (the call hung) when disposal has not begun, had returned <see cref="WriterRunOptions.DisposeMargin"/> or more
    /// before the call timeout ran out, has no real-time allowance, or the call did not end so.</summary>
    public async Task<bool> EndsWithDisposalAsync(Task call)
    {
        // A writer already proven broken (WriterRunOptions.ProvenRules) is not given the real time meant for a correct
        // writer's own timers: its disposal is moved along on the case's clock, which happens only once the calls'
        // watches have ended.
        if (_disposal is not { } disposal || _realBound is null || world.Options.ProvenRules.Count > 0)
            return call.IsCompleted;
        long returned = Volatile.Read(ref _returnedTimestamp);
        var sinceReturn = returned == 0 ? TimeSpan.Zero : System.Diagnostics.Stopwatch.GetElapsedTime(returned);
        if (returned != 0 && sinceReturn >= world.Options.CallAfterDisposeMargin)
            return call.IsCompleted;
        await BoundedWait.CompletesWithinAsync(Task.WhenAny(call, disposal), RealLeft()).ConfigureAwait(false);
        if (call.IsCompleted)
            return true;
        return disposal.IsCompleted
            && await BoundedWait
                .CompletesWithinRunnableAsync(call, world.Options.CallAfterDisposeMargin - sinceReturn)
                .ConfigureAwait(false);
    }

    /// <summary>The real time left of disposal's real-time allowance (zero when it has none or it ran out).</summary>
    private TimeSpan RealLeft() =>
        _realBound is { } real
            ? Max(TimeSpan.Zero, real - System.Diagnostics.Stopwatch.GetElapsedTime(_invokedTimestamp))
            : TimeSpan.Zero;

    private static TimeSpan Max(TimeSpan a, TimeSpan b) => a > b ? a : b;

    /// <summary>The output accepts no flush, so only the writer's own timers can end its disposal: each time the writer
    /// has settled, the case's clock moves to its next timer; with none armed within the case clock's bound, the writer
    /// waits on a timer of its own, and the harness waits in real time for as long as the larger of the two bounds has
    /// left. A writer still busy when a settle gives up (writing a large command into the output, slowed by timing
    /// noise on a loaded machine) is not waiting for a timer: the clock stays, and the harness settles again. Moving it
    /// then fired the writer's drain timeout in the middle of a command, and its give-up wait (real time) ran out
    /// before the command was written: CI's load made a correct writer (Zoo:PooledCompletion, a 1.1 MB body, noise on)
    /// write after its disposal returned. Nor is a writer that stopped in the middle of a command with no flush
    /// pending: a settle comes out quiet while its thread is off the CPU, but it has the rest of the command to write
    /// before it can wait for anything, so the clock stays until the output changes. (This covers drain timers longer
    /// than the thread's time off the CPU; the harness's own 25 ms one expires by real time anyway, and then the
    /// writer's real-time give-up wait is what covers it.)</summary>
    private async Task AwaitStalledAsync()
    {
        while (!_disposal!.IsCompleted)
        {
            var caseLeft = Bound - (world.Clock - _invokedAt!.Value);
            var left = Max(caseLeft, RealLeft());
            if (left <= TimeSpan.Zero)
            {
                _timedOut = true;
                return;
            }
            bool settled = await observer.SettleAsync().ConfigureAwait(false);
            if (_disposal.IsCompleted)
                return;
            if (!settled)
                continue;
            var changed = world.Output.WhenChanged;
            if (world.Output.IsMidCommand && !world.Output.IsFlushPending)
            {
                // Wait for the writer to commit more (or for disposal to end) rather than settle again and again beside
                // it.
                await BoundedWait.CompletesWithinAsync(Task.WhenAny(changed, _disposal), left).ConfigureAwait(false);
                continue;
            }
            if (caseLeft > TimeSpan.Zero && world.Time.TrySkipToNextTimer(Bound - (world.Clock - _invokedAt.Value)))
                continue;
            // No timer of the writer's on the case's clock within its bound: it waits on a timer of its own (real time,
            // given up to the factory's DisposeTimeout) or on nothing at all.
            await BoundedWait.CompletesWithinAsync(_disposal, left).ConfigureAwait(false);
        }
    }

    /// <summary>How far into disposal the harness last held the output (<see cref="LifecycleRecord.OutputHeldIntoDispose"/>):
    /// null when disposal has not returned or the output was last held before it began.</summary>
    private TimeSpan? HeldIntoDispose() =>
        HasReturned && world.Output.HeldLastAtDispose is { } held && held >= _invokedTimestamp
            ? System.Diagnostics.Stopwatch.GetElapsedTime(_invokedTimestamp, held)
            : null;

    /// <summary>The record for the evidence: a disposal that outlived its bound counts as not completed, even if it
    /// completed later (once the harness let a stalled output go).</summary>
    public LifecycleRecord Record() =>
        new(
            _invokedAt,
            _disposal is { IsCompleted: true } && !_timedOut ? _returnedAt : null,
            Bound,
            _pending,
            world.Output.BytesWrittenAfterDispose,
            world.StallsThroughDispose
        )
        {
            RealTimeBound = _realBound,
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
            OutputHeldIntoDispose = HeldIntoDispose(),
            DisposeRealTime = HasReturned
                ? System.Diagnostics.Stopwatch.GetElapsedTime(_invokedTimestamp, _returnedTimestamp)
                : null,
            LagDuringDispose = HasReturned
                ? SchedulingLag.Process.LagWithin(_invokedTimestamp, _returnedTimestamp)
                : null,
            OutputCompletedByWriterAt = world.Output.CompletedByWriterAt,
        };
}
