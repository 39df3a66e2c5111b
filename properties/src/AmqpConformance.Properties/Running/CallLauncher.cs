using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// Makes the calls of one case: builds each command (method and header frames rented from the writer's pool, the body a
/// slice of a larger array rented from the callers' pool; or a single method frame for a call without content), hands
/// it to the writer, watches the call to its end or its time limit, and poisons the caller's array as soon as the call
/// completes (or, with a body owner, when the writer disposes the owner). Fires cancellations and classifies each by
/// what the call was doing at that moment (<see cref="RunEvent"/>).
/// </summary>
/// <remarks>Never throws for anything the writer does: exceptions, hangs and misuse all end up in the traces.</remarks>
internal sealed class CallLauncher(WriterCase world)
{
    /// <summary>Token sources of completed calls whose step cancels after completion, waiting for the next call to
    /// start.</summary>
    private readonly System.Collections.Concurrent.ConcurrentQueue<(
        CallTrace Trace,
        CancellationTokenSource Source
    )> _ended = new();

    /// <summary>Starts <paramref name="trace"/>'s call with <paramref name="step"/>; the returned task (=
    /// <see cref="CallTrace.Done"/>) completes when the call has completed and been recorded, or was given up as hung.
    /// Never faults.</summary>
    public Task Start(CallTrace trace, CallStep step) => Launch(trace, step)();

    /// <summary>Starts <paramref name="trace"/>'s call as a pipelining caller does: the ValueTask WriteAsync returned
    /// is kept, not looked at, until <see cref="Collect"/>. The harness learns the call's outcome only then, so its
    /// completion time is when it was collected (later than the writer completed it: the order invariant judges fewer
    /// pairs, never more).</summary>
    public void StartDeferred(CallTrace trace, CallStep step)
    {
        trace.Pipelined = trace.IndexInPublisher > 0;
        trace.Collect = Launch(trace, step);
    }

    /// <summary>Awaits a call started by <see cref="StartDeferred"/> (the first and only consumption of its ValueTask);
    /// the returned task is <see cref="CallTrace.Done"/>. Never faults.</summary>
    public Task Collect(CallTrace trace)
    {
        var collect = trace.Collect
            ?? throw new InvalidOperationException($"Call {trace.Id} was not started deferred.");
        trace.Collect = null;
        return collect();
    }

    /// <summary>Starts the calls of <paramref name="traces"/> one after another as an <c>await</c> in a loop does, with
    /// no harness step between them: each next call is made from the previous call's completion, on the thread that
    /// completed it, inside the writer's signalling (a ValueTask's continuation runs inline unless the writer asked
    /// otherwise); a call that completes at once is followed at once. Returns at once; each call's
    /// <see cref="CallTrace.Done"/> says when it is over, and a call that hung ends the chain (its successors are never
    /// made).</summary>
    /// <remarks>Every other caller awaits through the harness's own task, whose continuation runs on the thread pool,
    /// so only this one makes a call from inside the writer's completion of the one before it: a delayed-flush writer
    /// whose timer clears its "flush scheduled" flag after signalling the calls its flush carried arms nothing for a
    /// call written from that signalling, which is then never flushed.</remarks>
    public void StartContinuing(IReadOnlyList<CallTrace> traces, IReadOnlyList<CallStep> steps)
    {
        ArgumentNullException.ThrowIfNull(traces);
        ArgumentNullException.ThrowIfNull(steps);
        From(0, fromCompletion: false);

        void From(int index, bool fromCompletion)
        {
            if (index >= steps.Count)
                return;
            // A call the harness gave up as hung ends the chain, even if the writer completes it later (at disposal,
            // say): its caller was never going to get that far in the case.
            if (
                index > 0
                && traces[index - 1] is { Done.IsCompleted: true, Outcome: Harness.Verdicts.CallOutcome.Pending }
            )
                return;
            if (fromCompletion)
                world.Events.Add(RunEvent.CallFromCompletion);
            _ = Launch(traces[index], steps[index], thenInline: async => From(index + 1, async))();
        }
    }

    /// <summary>Builds and hands over the call; returns what consumes its ValueTask and watches the call to its end.
    /// With <paramref name="thenInline"/>, what follows the call's completion (told whether the call went
    /// asynchronous): run on the thread that completed the call, before the harness's own bookkeeping, as an
    /// <c>await</c>'s continuation is.</summary>
    private Func<Task> Launch(
        CallTrace trace,
        CallStep step,
        Action? beforeHandOver = null,
        Action<bool>? thenInline = null
    )
    {
        var writer = world.Writer!;
        var output = world.Output;
        if (step.MethodOnly && (step.BodyLength != 0 || step.HeaderBytes != 0 || step.WithBodyOwner))
            throw new ArgumentException(
                $"A call without content has no body, headers or body owner; the step asks for them: {step}.",
                nameof(step)
            );
        if ((step.ConnectionLevel || step.Heartbeat) && !step.MethodOnly)
            throw new ArgumentException($"Only a call without content can go on channel 0: {step}.", nameof(step));
        if (step.WithoutToken && step.Cancel != CancelKind.None)
            throw new ArgumentException($"A call that passes no token cannot be cancelled: {step}.", nameof(step));
        byte[]? array = null;
        TrackedBodyOwner? owner = null;
        Harness.Writers.OutgoingCommand command;
        try
        {
            if (step.Heartbeat)
            {
                command = CallCommandBuilder.BuildHeartbeat(world.Context.Pool);
                world.Events.Add(RunEvent.HeartbeatCall);
            }
            else if (step.MethodOnly)
            {
                command = step.ConnectionLevel
                    ? CallCommandBuilder.BuildConnectionLevel(world.Context.Pool, world.Scenario.FrameMax, trace.Id)
                    : CallCommandBuilder.BuildWithoutContent(
                        world.Context.Pool,
                        world.Scenario.FrameMax,
                        trace.Channel,
                        trace.Id
                    );
                world.Events.Add(RunEvent.CommandWithoutContent);
            }
            else
            {
                var rented = world.CallerPool.Rent(step.SliceOffset + step.BodyLength + step.SliceSlack);
                array = rented;
                rented.AsSpan().Fill(0x11);
                var body = step.OpaqueBody
                    ? new OpaqueBodyMemory(rented).Memory.Slice(step.SliceOffset, step.BodyLength)
                    : rented.AsMemory(step.SliceOffset, step.BodyLength);
                trace.ExpectedBody.CopyTo(body);
                owner = step.WithBodyOwner
                    ? new TrackedBodyOwner(() => output.Committed, () => world.CallerPool.Return(rented), rented)
                    : null;
                trace.Owner = owner;
                command = CallCommandBuilder.Build(
                    world.Context.Pool,
                    world.Scenario.FrameMax,
                    trace.Channel,
                    trace.Id,
                    step.HeaderBytes,
                    body,
                    owner
                );
            }
        }
        catch (ArgumentException ex)
        {
            throw new InvalidOperationException(
                $"The scenario asks for a publish that cannot be framed under frame_max {world.Scenario.FrameMax}: {ex.Message}",
                ex
            );
        }
        var cts = new CancellationTokenSource();
        trace.CancelRequested = false;
        // A call without a token has nothing to cancel: script steps and racing releases that would cancel it do
        // nothing.
        trace.Cancel = step.WithoutToken ? null : () => Fire(trace, cts, racing: false);
        CancellationToken token = step.WithoutToken ? CancellationToken.None : cts.Token;
        if (step.WithoutToken)
            world.Events.Add(RunEvent.CallWithoutToken);
        if (step.Cancel == CancelKind.Before)
        {
            trace.CancelRequested = true;
            cts.Cancel();
        }
        // Armed inside the writer: at its n-th flush, or at its n-th request for memory (after a loop took the call and
        // checked its token, before it wrote the call's bytes); disarmed when the call completes.
        Action? armed = step.Cancel is CancelKind.OnFlush or CancelKind.OnWrite ? trace.Cancel : null;
        if (armed is not null && step.Cancel == CancelKind.OnFlush)
            output.FireOnFlush(armed, step.CancelAfterFlushes);
        else if (armed is not null)
            output.FireOnMemoryRequest(armed, step.CancelAfterFlushes);
        if (world.Output.FaultObservedAt is not null)
            world.Events.Add(RunEvent.CallAfterFault);
        if (trace.Channel > byte.MaxValue && step.BodyLength > 0)
            world.Events.Add(RunEvent.BodyOnChannelAbove255);
        trace.Started = world.Clock;
        trace.StartedTimestamp = SchedulingLag.Process.Now;
        trace.Attempted = true;
        ValueTask pending;
        // A writer that blocks the calling thread (sync over async) would hold this thread, and with it the script that
        // could release what it waits for: after the call timeout the harness cancels the call's token to get the
        // thread back. A call without a token cannot be got back so: the case's own bound
        // (WriterRunOptions.CaseTimeout) ends it. The timeout counts time in which the process could run: when it fires
        // after the process was kept from running, it waits again for as long as that lasted (SchedulingLag).
        int returned = 0;
        var runnable = RunnableStopwatch.StartNew();
        Timer? watchdogTimer = null;
        // Judged only after the meter's next tick: a process that was stopped runs its due timers as it comes back, and
        // this one could run before the meter had seen the stop, and blame a caller for time nobody could run.
        void Watch(bool afterTick)
        {
            if (Volatile.Read(ref returned) != 0)
                return;
            if (runnable.TakeOwed() is var owed && owed > TimeSpan.Zero)
            {
                try
                {
                    watchdogTimer!.Change(owed, Timeout.InfiniteTimeSpan);
                    return;
                }
                catch (ObjectDisposedException)
                {
                    return;
                } // returned meanwhile
            }
            if (!afterTick)
            {
                _ = SchedulingLag
                    .Process.NextTickAsync()
                    .ContinueWith(
                        _ => Watch(afterTick: true),
                        CancellationToken.None,
                        TaskContinuationOptions.None,
                        TaskScheduler.Default
                    );
                return;
            }
            trace.BlockedCaller = true;
            if (step.WithoutToken)
                return;
            trace.CancelRequested = true;
            try
            {
                cts.Cancel();
            }
            catch (ObjectDisposedException) { } // the call completed and its source was disposed: the caller's thread is back
        }
        using (
            var watchdog = watchdogTimer = new Timer(
                _ => Watch(afterTick: false),
                null,
                world.Options.BlockedCallerBound,
                Timeout.InfiniteTimeSpan
            )
        )
        {
            beforeHandOver?.Invoke();
            trace.Inside = new HarnessInside("WriteAsync", world.Clock);
            try
            {
                pending = writer.WriteAsync(command, token);
            }
            catch (Exception ex)
            {
                pending = ValueTask.FromException(ex);
            }
            Volatile.Write(ref returned, 1);
            trace.Inside = null;
        }
        trace.HandedOver = true;
        CancelEndedTokens();
        if (step.Cancel == CancelKind.Racing)
            _ = Task.Run(() => Fire(trace, cts, racing: true));
        return () =>
        {
            Task call = AwaitAsync(pending, thenInline is null ? null : () => thenInline(true), out bool atOnce);
            _ = WatchAsync(
                trace,
                call,
                cts,
                armed,
                owner is null ? array : null,
                cancelAfter: step.Cancel == CancelKind.AfterCompletion
            );
            if (atOnce)
                thenInline?.Invoke(false); // completed at once (or could not be awaited): the caller goes on at once
            return trace.Done;
        };
    }

    /// <summary>Cancels the tokens of completed calls whose step says <see cref="CancelKind.AfterCompletion"/>: the
    /// requests they belonged to have ended. Called as each call has been handed to the writer (so a writer that left a
    /// registration on a pooled entry, and gave the entry to this call, cancels this call), and once every call is
    /// done.</summary>
    public void CancelEndedTokens()
    {
        while (_ended.TryDequeue(out var ended))
        {
            world.Events.Add(RunEvent.CancelAfterCompletion);
            CancelInside(ended.Trace, ended.Source); // the call is over: whatever this still reaches inside the writer belongs to another call
            ended.Source.Dispose();
        }
    }

    /// <summary>Consumes the call's ValueTask once, as a caller's <c>await</c> does, but catching what its source
    /// throws at every step: a source the writer reset or reused under the caller (a pooled entry recycled before its
    /// caller took the result) refuses the state check, the continuation or the result, and that fails this call.
    /// Through <see cref="ValueTask.AsTask"/> or an async method the refused continuation is thrown on a pool thread
    /// and ends the process. <paramref name="continuation"/>, if any, runs inside the writer's completion of a call
    /// that went asynchronous, right after its outcome was taken (not for a call that completed at once, nor for one
    /// whose continuation the writer refused: <paramref name="atOnce"/> is true for those).</summary>
    private static Task AwaitAsync(ValueTask call, Action? continuation, out bool atOnce)
    {
        atOnce = true;
        var awaiter = call.ConfigureAwait(false).GetAwaiter();
        try
        {
            if (awaiter.IsCompleted)
            {
                awaiter.GetResult();
                return Task.CompletedTask;
            }
        }
        catch (Exception ex)
        {
            return Task.FromException(ex);
        }
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        try
        {
            awaiter.UnsafeOnCompleted(() =>
            {
                try
                {
                    awaiter.GetResult();
                    done.TrySetResult();
                }
                catch (Exception ex)
                {
                    done.TrySetException(ex); // a cancellation too: its exception says what the writer reported
                }
                continuation?.Invoke();
            });
        }
        catch (Exception ex)
        {
            done.TrySetException(ex);
            return done.Task; // no continuation was registered: atOnce stays true
        }
        atOnce = false;
        return done.Task;
    }

    /// <summary>Starts <paramref name="trace"/>'s call while, on another thread at the same moment,
    /// <paramref name="onAnotherThread"/> runs (the output releasing its held flushes, or disposal beginning): the two
    /// threads are let go together once the command is built, right before it is handed to WriteAsync, so what races is
    /// the writer's entry, not the harness's preparation.</summary>
    public void StartRacing(CallTrace trace, CallStep step, Action onAnotherThread) =>
        AtTheSameMoment(onAnotherThread, letGo => _ = Launch(trace, step, beforeHandOver: letGo)());

    /// <summary>Cancels <paramref name="trace"/>'s call from another thread at the same moment the output releases its
    /// held flushes.</summary>
    public void ReleaseRacingCancel(CallTrace trace)
    {
        var cancel = trace.Cancel;
        AtTheSameMoment(
            onAnotherThread: () =>
            {
                if (cancel is not null)
                    FireRacing(trace);
            },
            here: letGo =>
            {
                letGo();
                world.Output.Release();
            }
        );
    }

    /// <summary>Runs <paramref name="onAnotherThread"/> on a pool thread and <paramref name="here"/> on this one; the
    /// other thread starts when <paramref name="here"/> calls the action it is given (this thread goes on from that
    /// moment too, so the two race), or when <paramref name="here"/> returns without calling it (it could not get that
    /// far). Returns when both are done.</summary>
    private static void AtTheSameMoment(Action onAnotherThread, Action<Action> here)
    {
        using var start = new Barrier(2);
        var other = Task.Run(() =>
        {
            start.SignalAndWait();
            onAnotherThread();
        });
        bool letGo = false;
        try
        {
            here(() =>
            {
                letGo = true;
                start.SignalAndWait();
            });
        }
        finally
        {
            if (!letGo)
                start.SignalAndWait();
            other.Wait();
        }
    }

    private void FireRacing(CallTrace trace)
    {
        world.Events.Add(RunEvent.CancelRacingCompletion);
        trace.Cancel?.Invoke();
    }

    /// <summary>Cancels the call, first noting what it was doing: parked (none of its bytes committed), during a
    /// pending flush, or racing.</summary>
    private void Fire(CallTrace trace, CancellationTokenSource cts, bool racing)
    {
        if (!trace.IsPending)
            return;
        if (racing)
            world.Events.Add(RunEvent.CancelRacingCompletion);
        if (!world.Output.HasStarted(trace.Id))
            world.Events.Add(RunEvent.CancelWhileParked);
        if (world.Output.IsFlushPending)
            world.Events.Add(RunEvent.CancelDuringFlush);
        // The call may have completed (and its source been disposed) since the check above: then there is nothing to
        // cancel.
        trace.CancelRequested = true;
        try
        {
            CancelInside(trace, cts);
        }
        catch (ObjectDisposedException) { } // completed meanwhile (above): nothing to cancel
    }

    /// <summary>Cancels <paramref name="cts"/>, noting on <paramref name="trace"/> that this thread is inside the
    /// writer's callbacks until Cancel returns (a callback that never returns is what a hung case then
    /// names).</summary>
    private void CancelInside(CallTrace trace, CancellationTokenSource cts)
    {
        trace.Inside = new HarnessInside(
            "the cancellation of its token (CancellationTokenSource.Cancel, which runs the callbacks the writer registered on it)",
            world.Clock
        );
        try
        {
            cts.Cancel();
        }
        finally
        {
            trace.Inside = null;
        }
    }

    private async Task WatchAsync(
        CallTrace trace,
        Task call,
        CancellationTokenSource cts,
        Action? armed,
        byte[]? array,
        bool cancelAfter
    )
    {
        try
        {
            // The call timeout counts time in which the process could run: a loaded machine's time off the CPU is added
            // back.
            if (
                !await BoundedWait.CompletesWithinRunnableAsync(call, world.Options.HungCallBound).ConfigureAwait(false)
                && !(
                    world.Lifecycle is { } lifecycle
                    && await lifecycle.EndsWithDisposalAsync(call).ConfigureAwait(false)
                )
            )
                return; // hung: leave the body alone, the writer may still be using it
            trace.DeliveredAtCompletion = world.Output.DeliveredOffset; // read after the call completed: what had been delivered by then
            trace.Complete(
                world.Clock,
                call.Exception?.InnerException ?? (call.IsCanceled ? new OperationCanceledException() : null)
            );
            world.NoteCompletion();
            if (armed is not null)
                world.Output.Disarm(armed);
            trace.Cancel = null;
            if (cancelAfter)
                _ended.Enqueue((trace, cts)); // cancelled when the next call has started: see CancelEndedTokens
            else
                cts.Dispose();
            if (array is not null)
            {
                world.CallerPool.Return(array); // poisons the array, and a later publish may reuse it
                trace.Poisoned = true;
            }
        }
        finally
        {
            trace.MarkDone();
        }
    }
}
