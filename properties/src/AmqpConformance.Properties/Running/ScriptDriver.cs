using System.Diagnostics;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// Runs a scripted scenario: one driver performs the <see cref="ScriptAction"/>s in order and lets the writer settle
/// after each, so every step meets the writer in a definite state (calls parked behind a held flush, a cancellation
/// landing during a pending flush, disposal with parked calls...). The harness decides when each flush completes, when
/// each cancellation fires and when the next call starts, all from the scenario, so a failure replays from the scenario
/// alone.
/// </summary>
internal static class ScriptDriver
{
    public static async Task RunAsync(
        WriterCase world,
        CallLauncher calls,
        CaseObserver observer,
        CaseLifecycle lifecycle
    )
    {
        var scenario = world.Scenario;
        int[] next = new int[scenario.Publishers.Count];
        await observer.SettleAsync().ConfigureAwait(false);
        var script = scenario.Script!;
        for (int step = 0; step < script.Count; step++)
        {
            var action = script[step];
            await world.MeetOtherConnectionsAsync().ConfigureAwait(false);
            switch (action.Kind)
            {
                case ScriptActionKind.Call:
                    await CallAsync(world, calls, observer, lifecycle, action.Publisher, next, racing: null)
                        .ConfigureAwait(false);
                    break;
                case ScriptActionKind.ReleaseRacingCall:
                    await CallAsync(world, calls, observer, lifecycle, action.Publisher, next, racing: _ =>
                            world.Output.Release
                        )
                        .ConfigureAwait(false);
                    world.Output.Release(); // a skipped call still ends the hold
                    break;
                case ScriptActionKind.DisposeRacingCall:
                    await CallAsync(world, calls, observer, lifecycle, action.Publisher, next, racing: trace =>
                        {
                            if (lifecycle.PrepareRacing(trace) is not { } dispose)
                                return null;
                            world.Events.Add(RunEvent.DisposeRacingCall);
                            int spins = action.Spins;
                            return () =>
                            {
                                if (spins > 0)
                                    Thread.SpinWait(spins);
                                dispose();
                            };
                        })
                        .ConfigureAwait(false);
                    lifecycle.Begin(); // a skipped call still begins disposal (nothing once begun)
                    break;
                case ScriptActionKind.Idle:
                    await IdleAsync(world, observer, CallFollows(script, step)).ConfigureAwait(false);
                    break;
                case ScriptActionKind.Stall:
                    await StallAsync(world, observer, CallFollows(script, step)).ConfigureAwait(false);
                    break;
                case ScriptActionKind.Hold:
                    world.Output.Hold();
                    break;
                case ScriptActionKind.Release:
                    world.Output.Release();
                    break;
                case ScriptActionKind.Pulse:
                    world.Output.Pulse();
                    await observer.SettleAsync().ConfigureAwait(false);
                    if (world.AllTraces.Any(t => t.IsPending) || world.Output.HeldFlushes > 0)
                        world.Events.Add(RunEvent.PulseWithCallsPending);
                    break;
                case ScriptActionKind.Cancel:
                    PendingOf(world, action.Publisher)?.Cancel?.Invoke();
                    break;
                case ScriptActionKind.ReleaseRacingCancel:
                    // The publisher's pending call, else the longest-parked call of any publisher: a race needs a call
                    // in flight.
                    if ((PendingOf(world, action.Publisher) ?? OldestParked(world)) is { } racing)
                        calls.ReleaseRacingCancel(racing);
                    else
                        world.Output.Release();
                    break;
                case ScriptActionKind.Reset:
                    world.Transport.Reset("reset by the script");
                    await TransportStoppedAsync(world).ConfigureAwait(false);
                    break;
                case ScriptActionKind.Close:
                    world.Transport.Close("closed by the script");
                    await TransportStoppedAsync(world).ConfigureAwait(false);
                    break;
                case ScriptActionKind.Dispose:
                    lifecycle.Begin();
                    break;
            }
            await observer.SettleAsync().ConfigureAwait(false);
        }
    }

    /// <summary>Starts the publisher's next call, if it can make one now; with <paramref name="racing"/>, what it makes
    /// of the call's trace (if anything) runs on another thread at the same moment as the call reaches the
    /// writer.</summary>
    private static async Task CallAsync(
        WriterCase world,
        CallLauncher calls,
        CaseObserver observer,
        CaseLifecycle lifecycle,
        int publisher,
        int[] next,
        Func<CallTrace, Action?>? racing
    )
    {
        if (publisher < 0 || publisher >= next.Length)
            return;
        var traces = world.Traces[publisher];
        if (next[publisher] >= traces.Count || PendingOf(world, publisher) is not null)
            return;
        var trace = traces[next[publisher]];
        // A publisher's calls on a shared channel wait for the channel, as a client's channel lock would: here the step
        // is skipped.
        if (world.AllTraces.Any(t => t.IsPending && t.Channel == trace.Channel))
            return;
        await observer.CheckVisibilityAsync($"before call {trace.Id}").ConfigureAwait(false);
        await LetWriterReactToFaultAsync(world, observer).ConfigureAwait(false);
        await GiveFaultGraceAsync(world, observer).ConfigureAwait(false);
        await GiveRealGraceBeforeCallAsync(world, observer).ConfigureAwait(false);
        if (lifecycle.Begun)
            world.Events.Add(RunEvent.CallAfterDispose);
        next[publisher]++;
        var step = world.Scenario.Publishers[publisher][trace.IndexInPublisher];
        if (racing?.Invoke(trace) is { } other)
            calls.StartRacing(trace, step, other);
        else
            _ = calls.Start(trace, step);
        await observer.SettleAsync().ConfigureAwait(false);
        observer.NoteStarted(trace);
    }

    /// <summary>At most this many of the writer's timers fire in one idle step (a writer with a millisecond period
    /// would otherwise keep the step going for 120,000 rounds); the rest of the span is then skipped in one
    /// go.</summary>
    private const int IdleTimerRounds = 200;

    /// <summary>An idle connection (<see cref="ScriptActionKind.Idle"/>): with nothing pending and the output not held,
    /// moves the case's clock to each of the writer's timers in turn over <see cref="ScriptAction.IdleSpan"/>, letting
    /// the writer settle after each, then to the end of the span. Without it no case lasted longer than milliseconds,
    /// so a writer's timer of seconds (a write timeout, a heartbeat) never fired on a healthy connection.</summary>
    private static async Task IdleAsync(WriterCase world, CaseObserver observer, bool callFollows)
    {
        if (world.AllTraces.Any(t => t.IsPending) || world.Output.IsHolding || world.Output.IsFlushPending)
            return;
        world.Events.Add(RunEvent.IdleConnection);
        await LetTimePassAsync(world, observer, ScriptAction.IdleSpan, callFollows).ConfigureAwait(false);
    }

    /// <summary>Whether a step after <paramref name="step"/> makes a call: only then can moving the clock past a
    /// fault's grace change how a call is judged (see <see cref="LetTimePassAsync"/>).</summary>
    private static bool CallFollows(IReadOnlyList<ScriptAction> script, int step)
    {
        for (int i = step + 1; i < script.Count; i++)
            if (script[i].MakesCall)
                return true;
        return false;
    }

    /// <summary>A long stall (<see cref="ScriptActionKind.Stall"/>): with the output holding and a flush pending, moves
    /// the case's clock over the writer's timers for <see cref="ScriptAction.StallSpan"/>, as an idle step does, with
    /// the call in flight, so a timer that takes "no call started for a while" for "no call in progress" (an
    /// idle-buffer trim that returns the staging buffer a stalled call is still writing from) fires while a call is in
    /// progress.</summary>
    /// <remarks>One stall per pending flush: a stall step that finds the writer with no flush started since the last
    /// stall does nothing, so no flush stays stalled for more than <see cref="ScriptAction.StallSpan"/> of the case's
    /// clock, as docs/writers.md promises: two stall steps in a row on one flush would hold it for 40 s, and a correct
    /// writer with RabbitMQ.Client's 30 s write timeout would be blamed for giving up on it.</remarks>
    private static async Task StallAsync(WriterCase world, CaseObserver observer, bool callFollows)
    {
        if (!world.Output.IsHolding || !world.Output.IsFlushPending || world.Output.Flushes == world.FlushesAtLastStall)
            return;
        world.Events.Add(RunEvent.LongStall);
        await LetTimePassAsync(world, observer, ScriptAction.StallSpan, callFollows).ConfigureAwait(false);
        world.FlushesAtLastStall = world.Output.Flushes;
    }

    /// <summary>Moves the case's clock to each of the writer's timers in turn over <paramref name="span"/>, letting the
    /// writer settle after each (at most <see cref="IdleTimerRounds"/> of them), then to the end of the span.</summary>
    private static async Task LetTimePassAsync(WriterCase world, CaseObserver observer, TimeSpan span, bool callFollows)
    {
        // A fault the writer met within the faults invariant's grace, with a call still to come: the writer gets its
        // real time first. Moved past the grace at once, the clock would leave a writer that completes calls on accept
        // no time to mark itself faulted (under load, a reset and then an idle step: the reference Background writer
        // accepts the next call before its loop has run, 120 s of case clock "after" the fault). With no call to come
        // there is nothing the move can misjudge (a call is judged by when it started), so then the wait (200 ms, in
        // 3 % of Background's cases) is skipped.
        if (
            callFollows
            && world.Output.FaultObservedAt is { } seen
            && world.Factory.Completion != Harness.Writers.WriterCompletion.AfterFlush
        )
            await WaitOutFaultGraceAsync(world, observer, seen).ConfigureAwait(false);
        var until = world.Clock + span;
        for (int round = 0; round < IdleTimerRounds && world.Clock < until; round++)
        {
            if (!world.Time.TrySkipToNextTimer(until - world.Clock))
                break;
            await observer.SettleAsync().ConfigureAwait(false);
        }
        var rest = until - world.Clock;
        if (rest > TimeSpan.Zero)
            world.Time.Skip(rest);
        await observer.SettleAsync().ConfigureAwait(false);
    }

    /// <summary>Waits until a reset or close the script made has taken effect (both directions of the transport
    /// stopped, so the writer's next flush meets it), bounded by the call timeout. Without this wait the next call step
    /// could come while the transport's pumps, on the thread pool, had not yet stopped: on a loaded machine that call's
    /// flush went through, and the case ran differently from its replay.</summary>
    private static Task TransportStoppedAsync(WriterCase world) =>
        BoundedWait.CompletesWithinAsync(world.Transport.Completion, world.Options.CallTimeout);

    /// <summary>Before the first call after the writer saw a fault, when the writer may complete calls on accept, gives
    /// it <see cref="WriterRunOptions.FaultReactionWait"/> to mark itself faulted, so that call is not accepted merely
    /// because it came first (which would cost the grace below). A writer that completes calls only after a successful
    /// flush cannot accept a call on a failed output, so it is not waited for.</summary>
    private static Task LetWriterReactToFaultAsync(WriterCase world, CaseObserver observer) =>
        world.Output.FaultObservedAt is { } seen
        && world.Factory.Completion != Harness.Writers.WriterCompletion.AfterFlush
        && !world.AllTraces.Any(t => t.Attempted && t.Started > seen)
            ? observer.LetWriterReactAsync(seen, world.Options.FaultReactionWait)
            : Task.CompletedTask;

    /// <summary>When the writer has seen a fault and already let a later call succeed without failing any, lets the
    /// faults invariant's grace period pass before the next call, so that call's outcome is judged, not excused: the
    /// writer gets <see cref="WriterRunOptions.FaultGraceRealWait"/> of real time and settles, then the case's clock
    /// skips the rest.</summary>
    private static async Task GiveFaultGraceAsync(WriterCase world, CaseObserver observer)
    {
        if (world.Output.FaultObservedAt is not { } seen)
            return;
        if (
            HasRefusedSince(world, seen)
            || !world.AllTraces.Any(t =>
                t.Attempted && t.Started > seen && t.Done.IsCompleted && t.Outcome == CallOutcome.Succeeded
            )
        )
            return;
        await WaitOutFaultGraceAsync(world, observer, seen).ConfigureAwait(false);
    }

    /// <summary>Lets the faults invariant's grace after the fault seen at <paramref name="seen"/> pass: the writer gets
    /// <see cref="WriterRunOptions.FaultGraceRealWait"/> of it in real time (less once the machine has been seen
    /// scheduling promptly for <see cref="WriterRunOptions.FaultGraceQuietWindow"/>, never less than the invariant's
    /// real-time grace) and settles, then the case's clock skips the rest. Nothing once the grace has passed.</summary>
    private static async Task WaitOutFaultGraceAsync(WriterCase world, CaseObserver observer, TimeSpan seen)
    {
        var graceEnds = seen + FaultsChecker.DefaultGrace + TimeSpan.FromMilliseconds(50);
        var real = graceEnds - world.Clock;
        if (real <= TimeSpan.Zero || HasRefusedSince(world, seen))
            return;
        if (real > world.Options.FaultGraceRealWait)
            real = world.Options.FaultGraceRealWait;
        world.FaultGraceWaits++;
        world.FaultGraceWaited += await PromptSchedulingWindow
            .WaitAsync(world.Options.FaultGraceQuietWindow, real)
            .ConfigureAwait(false);
        world.FaultGraceWaited += await GiveRealGraceAsync(world).ConfigureAwait(false);
        await observer.SettleAsync().ConfigureAwait(false);
        var rest = graceEnds - world.Clock;
        if (rest > TimeSpan.Zero)
            world.Time.Skip(rest);
    }

    /// <summary>Before a call that starts past the faults invariant's grace on the case's clock, when the writer may
    /// complete calls on accept: makes sure the writer has also had the invariant's real-time grace
    /// (<see cref="FaultsChecker.RealGrace"/>) since it saw the fault, in time the process could run, and settles it.
    /// The case's clock moves past the grace in a moment (a stall, a writer's timer during disposal); a call judged on
    /// it alone would blame a correct writer whose dedicated thread has not yet run to mark it faulted
    /// (Zoo:MonitorWaitThread). Without this wait such a call would be excused instead: judged on the time the writer
    /// had, a writer that accepts calls for ever after a fault is still caught.</summary>
    private static async Task GiveRealGraceBeforeCallAsync(WriterCase world, CaseObserver observer)
    {
        if (
            world.Output.FaultObservedAt is not { } seen
            || world.Factory.Completion == Harness.Writers.WriterCompletion.AfterFlush
        )
            return;
        if (world.Clock <= seen + FaultsChecker.DefaultGrace || HasRefusedSince(world, seen))
            return;
        if (await GiveRealGraceAsync(world).ConfigureAwait(false) > TimeSpan.Zero)
            await observer.SettleAsync().ConfigureAwait(false);
    }

    /// <summary>Whether a call that started after the fault seen at <paramref name="seen"/> has failed: the writer
    /// knows of the fault, and a later call that succeeds is caught whenever it comes (<c>succeeded-after-failure</c>),
    /// so no time needs to be given for it to learn. The reference background writer refuses the first call after a
    /// fault: without this, every idle or stall step after it waited the real-time grace, and its cases ran a third
    /// slower.</summary>
    private static bool HasRefusedSince(WriterCase world, TimeSpan seen) =>
        world.AllTraces.Any(t =>
            t.Attempted && t.Started > seen && t.Done.IsCompleted && t.Outcome == CallOutcome.Failed
        );

    /// <summary>Waits until <see cref="FaultsChecker.RealGrace"/> of time in which the process could run has passed
    /// since the writer saw the fault (by <see cref="SchedulingLag.Process"/>: lag it saw meanwhile is waited again, up
    /// to <see cref="RunnableStopwatch.MostCredited"/>); returns the time waited.</summary>
    private static async Task<TimeSpan> GiveRealGraceAsync(WriterCase world)
    {
        if (world.Output.FaultObservedTimestamp is not { } at)
            return TimeSpan.Zero;
        var lag = SchedulingLag.Process;
        var grace = FaultsChecker.DefaultRealGrace;
        long start = lag.Now;
        while (true)
        {
            var had = lag.RunnableBetween(at, lag.Now);
            var waited = Stopwatch.GetElapsedTime(start);
            if (had >= grace || waited >= RunnableStopwatch.MostCredited)
                return waited;
            await Task.Delay(grace - had).ConfigureAwait(false);
            // The meter sees a stall only at its next tick: let it look before the time given is read again.
            await lag.NextTickAsync()
                .WaitAsync(TimeSpan.FromSeconds(1))
                .ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        }
    }

    private static CallTrace? OldestParked(WriterCase world) =>
        world.AllTraces.Where(t => t.IsPending && !world.Output.HasStarted(t.Id)).MinBy(t => t.Started);

    private static CallTrace? PendingOf(WriterCase world, int publisher) =>
        publisher >= 0 && publisher < world.Traces.Count
            ? world.Traces[publisher].FirstOrDefault(t => t.IsPending)
            : null;
}
