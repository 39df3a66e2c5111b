using System.Diagnostics;
using AmqpConformance.Harness.Reports;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// Runs a <see cref="Scenario"/> against a writer from any <see cref="FrameWriterFactory"/>, in process: the writer
/// writes through the harness's <see cref="ControlledOutput"/> into a faulty transport and on into the in-process fake
/// broker, which records and validates every frame (see <see cref="WriterCase"/>). The harness owns the writer's pool
/// and the callers' pool, so it sees every rental, and it poisons each caller's body as soon as the call completes (or
/// its owner is disposed).
/// </summary>
/// <remarks>
/// <para>The order of a run: open the connection; run the calls (free-running or scripted); then, unless the script
/// already did, check that every successful call's bytes were flushed (<see cref="CaseObserver.CheckVisibilityAsync"/>)
/// before anything else happens, dispose the writer (bounded), let it settle so late writes show, and only then
/// complete the output, end the connection and collect the broker's frame log as the evidence.</para>
/// <para>Never throws for anything the writer does: hangs, exceptions and misuse all end up in the evidence.</para>
/// </remarks>
public static class WriterLevelRunner
{
    /// <summary>Runs <paramref name="scenario"/> against a fresh writer from <paramref name="factory"/>, or, for a case
    /// on several connections (<see cref="Scenario.Connections"/>), against one fresh writer per connection at once
    /// (<see cref="RunConnectionsAsync"/>).</summary>
    /// <exception cref="InvalidOperationException">The factory could not create a writer.</exception>
    public static Task<RunResult> RunAsync(
        FrameWriterFactory factory,
        Scenario scenario,
        WriterRunOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(factory);
        ArgumentNullException.ThrowIfNull(scenario);
        options ??= WriterRunOptions.Default;
        return scenario.Connections > 1
            ? RunConnectionsAsync(factory, scenario, options, cancellationToken)
            : RunConnectionAsync(factory, scenario, options, null, cancellationToken);
    }

    /// <summary>Runs a case on <see cref="Scenario.Connections"/> connections at once, each its own
    /// <see cref="WriterCase"/> (writer, output, transport, broker, case clock) running
    /// <see cref="Scenario.ForConnection"/>, kept in step by one <see cref="ConnectionLockstep"/>. Each connection is
    /// judged on its own; the result is the first connection's whose judgement has a violation (so its evidence, frame
    /// log and report are that connection's), or the first connection's when every one holds, with the others in
    /// <see cref="RunResult.OtherConnections"/>.</summary>
    private static async Task<RunResult> RunConnectionsAsync(
        FrameWriterFactory factory,
        Scenario scenario,
        WriterRunOptions options,
        CancellationToken cancellationToken
    )
    {
        var lockstep = new ConnectionLockstep(scenario.Connections);
        var runs = Enumerable
            .Range(0, scenario.Connections)
            .Select(k =>
                Task.Run(
                    () => RunConnectionAsync(factory, scenario.ForConnection(k), options, lockstep, cancellationToken),
                    CancellationToken.None
                )
            )
            .ToArray();
        try
        {
            await Task.WhenAll(runs).ConfigureAwait(false);
        }
        catch (InvalidOperationException) when (runs.Any(r => r.IsCompletedSuccessfully))
        {
            // A connection whose writer could not be made: the other connections ran and ended on their own; the
            // failure is rethrown below as a case on one connection would throw it.
        }
        if (runs.FirstOrDefault(r => !r.IsCompletedSuccessfully) is { } failed)
            await failed.ConfigureAwait(false);
        var results = runs.Select((r, k) => r.Result with { Connection = k }).ToList();
        bool met = lockstep.StepsMet > 0;
        if (met)
            foreach (var result in results)
                result.Events.Add(RunEvent.ConnectionsAtOnce);
        int shown = results.FindIndex(r => r.Judgement.Violations.Any());
        var chosen = results[Math.Max(0, shown)];
        return chosen with
        {
            Scenario = scenario,
            ConnectionScenario = chosen.Scenario,
            OtherConnections = [.. results.Where(r => r != chosen)],
        };
    }

    /// <summary>Runs <paramref name="scenario"/> on one connection with a fresh writer, keeping
    /// <paramref name="lockstep"/> with the case's other connections, if any, while its driver runs.</summary>
    private static async Task<RunResult> RunConnectionAsync(
        FrameWriterFactory factory,
        Scenario scenario,
        WriterRunOptions options,
        ConnectionLockstep? lockstep,
        CancellationToken cancellationToken
    )
    {
        long started = Stopwatch.GetTimestamp();
        WriterCase world;
        try
        {
            world = await WriterCase.OpenAsync(factory, scenario, options, cancellationToken).ConfigureAwait(false);
        }
        catch (InvalidOperationException)
        {
            lockstep?.Leave(); // nothing of this connection will run: the others must not wait for it
            throw;
        }
        world.Lockstep = lockstep;
        long opened = Stopwatch.GetTimestamp();
        var calls = new CallLauncher(world);
        var observer = new CaseObserver(world);
        var lifecycle = new CaseLifecycle(world, observer);

        // The case runs on a thread of its own and is waited for with a bound: a writer can keep a harness thread for
        // ever (a cancellation callback that deadlocks the thread cancelling, a WriteAsync stuck on a lock), and then
        // only this wait comes back, to report what the harness is stuck in instead of hanging the run.
        var run = Task.Run(() => DriveAsync(world, calls, observer, lifecycle, started, opened));
        if (!await CompletesWithinCaseBoundAsync(run, options, lifecycle, opened).ConfigureAwait(false))
        {
            world.LeaveOtherConnections();
            return Abandon(world, observer, lifecycle, run);
        }
        try
        {
            return await run.ConfigureAwait(false);
        }
        finally
        {
            await world.DisposeAsync().ConfigureAwait(false);
        }
    }

    /// <summary>Waits for the case within <see cref="WriterRunOptions.CaseTimeout"/> of real time from when the writer
    /// opened, and, while disposal is being given real time for a writer's own timers
    /// (<see cref="CaseLifecycle.RealTimeAllowanceEnds"/>), until half a case bound after that allowance runs out: the
    /// case bound is for harness threads stuck in the writer, not for a disposal the harness itself is still waiting
    /// for. Time in which the process could not run is added back (SchedulingLag).</summary>
    private static async Task<bool> CompletesWithinCaseBoundAsync(
        Task run,
        WriterRunOptions options,
        CaseLifecycle lifecycle,
        long opened
    )
    {
        long deadline = opened + CaseClock.ToTicks(options.CaseBound);
        while (true)
        {
            var left = Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp(), deadline);
            if (await BoundedWait.CompletesWithinRunnableAsync(run, left).ConfigureAwait(false))
                return true;
            if (lifecycle.RealTimeAllowanceEnds is not { } ends)
                return false;
            long extended = ends + CaseClock.ToTicks(options.CaseTimeout / 2);
            if (extended <= Stopwatch.GetTimestamp())
                return false;
            deadline = extended;
        }
    }

    private static async Task<RunResult> DriveAsync(
        WriterCase world,
        CallLauncher calls,
        CaseObserver observer,
        CaseLifecycle lifecycle,
        long started,
        long opened
    )
    {
        var scenario = world.Scenario;
        try
        {
            if (scenario.Script is null)
                await FreeRunDriver.RunAsync(world, calls, observer).ConfigureAwait(false);
            else
                await ScriptDriver.RunAsync(world, calls, observer, lifecycle).ConfigureAwait(false);
        }
        finally
        {
            world.LeaveOtherConnections(); // the steps that meet the other connections are over
        }

        long driven = Stopwatch.GetTimestamp();
        if (world.StallsThroughDispose)
            await lifecycle.AwaitAsync().ConfigureAwait(false); // the output stays stalled until then
        world.Output.Release();
        await Task.WhenAll(world.AllTraces.Where(t => t.Attempted).Select(t => t.Done)).ConfigureAwait(false);
        calls.CancelEndedTokens();
        if (!lifecycle.Begun)
        {
            await observer.SettleAsync().ConfigureAwait(false);
            await observer.CheckVisibilityAsync("after the last call").ConfigureAwait(false);
        }
        await lifecycle.AwaitAsync().ConfigureAwait(false);
        await observer.SettleAsync().ConfigureAwait(false); // late writes after disposal show up now
        await world.EndConnectionAsync().ConfigureAwait(false);
        long ended = Stopwatch.GetTimestamp();
        await LetLagMeterCatchUpAsync(world).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        var evidence = world.Evidence.Build(SourcesOf(world, observer, lifecycle));
        var phases = new RunPhases(
            Stopwatch.GetElapsedTime(started, opened),
            Stopwatch.GetElapsedTime(opened, driven),
            Stopwatch.GetElapsedTime(driven, ended),
            Stopwatch.GetElapsedTime(ended)
        )
        {
            Skipped = world.Time.Skipped,
            FaultGraceWaits = world.FaultGraceWaits,
            FaultGraceWaited = world.FaultGraceWaited,
        };
        return new RunResult(scenario, evidence, world.Connection.Log) { Events = world.Events, Phases = phases };
    }

    /// <summary>The result of a case that did not end within <see cref="WriterRunOptions.CaseTimeout"/>: the evidence
    /// so far, with what the harness's threads are stuck in. The case's threads are left where they are (nothing can
    /// bring back a thread blocked inside the writer), and the case is disposed in the background, with the same
    /// bound.</summary>
    private static RunResult Abandon(
        WriterCase world,
        CaseObserver observer,
        CaseLifecycle lifecycle,
        Task<RunResult> run
    )
    {
        var stuck = world
            .AllTraces.Select(t => (Trace: t, Inside: t.Inside))
            .Where(x => x.Inside is not null)
            .Select(x =>
                $"call {x.Trace.Id} (publisher {x.Trace.Publisher}) in {x.Inside!.What} since {x.Inside.Since.TotalMilliseconds:0.###} ms"
            )
            .ToList();
        string hung =
            $"The case did not end within {world.Options.CaseBound.TotalSeconds:0.###} s. "
            + (
                stuck.Count > 0
                    ? $"Harness threads are inside the writer and never came back: {string.Join("; ", stuck)}."
                    : "No harness thread is inside the writer's code: the harness waited on something the writer never did."
            );
        var evidence = world.Evidence.BuildHung(SourcesOf(world, observer, lifecycle), hung);
        _ = run.ContinueWith(static t => _ = t.Exception, TaskScheduler.Default); // observed if it ever fails
        _ = Task.Run(async () =>
        {
            try
            {
                await world.DisposeAsync().AsTask().WaitAsync(world.Options.CaseTimeout).ConfigureAwait(false);
            }
            catch (Exception e)
            {
                // the writer is stuck: the case is judged already, and its disposal may well time out
                SwallowedExceptions.Record("disposing a hung case in the background", e);
            }
        });
        return new RunResult(world.Scenario, evidence, world.Connection.Log) { Events = world.Events };
    }

    /// <summary>Where the case's evidence is read from (<see cref="EvidenceBuilder"/>): the broker's log of the
    /// connection from the writer's first byte, and what the harness observed of the writer's pools, output and
    /// disposal.</summary>
    private static EvidenceSources SourcesOf(WriterCase world, CaseObserver observer, CaseLifecycle lifecycle) =>
        new(world.Connection.Log, world.OutputWireOffset, world.Scenario.FrameMax, findings => FaultOf(world, findings))
        {
            Writer = new WriterObservations(
                world.Output,
                world.WriterPool,
                world.CallerPool,
                lifecycle,
                observer,
                world.Factory.Completion
            ),
        };

    /// <summary>Before the evidence is read: when a call succeeded more than the faults invariant's grace after the
    /// writer saw a fault on the case's clock, waits for the scheduling-lag meter's next tick, so that lag the process
    /// suffered before that call started is counted in <see cref="CallRecord.RunnableAfterFaultSeen"/> (the meter sees
    /// a stall only at the tick after it). So does a case whose disposal returned with a successful call never
    /// delivered, for the lag within disposal (<see cref="LifecycleRecord.LagDuringDispose"/>). Only such cases wait
    /// (at most a tick, 10 ms).</summary>
    private static Task LetLagMeterCatchUpAsync(WriterCase world)
    {
        bool lateAfterFault =
            world.Output.FaultObservedAt is { } seen
            && world.AllTraces.Any(t =>
                t.Attempted && t.Outcome == CallOutcome.Succeeded && t.Started > seen + FaultsChecker.DefaultGrace
            );
        bool undeliveredAtDispose =
            world.Lifecycle is { HasReturned: true }
            && world
                .Output.NotVisible(world.AllTraces.Where(t => t.Attempted && t.Outcome == CallOutcome.Succeeded))
                .Any();
        return lateAfterFault || undeliveredAtDispose
            ? SchedulingLag.Process.NextTickAsync().WaitAsync(TimeSpan.FromSeconds(1))
            : Task.CompletedTask;
    }

    /// <summary>The transport fault of the run: injected (reset, closed), the broker closing the connection, or the
    /// output reporting completion; null when the connection stayed healthy. Counts a cut inside a body frame as
    /// <see cref="RunEvent.FaultMidBody"/>.</summary>
    private static TransportFaultRecord? FaultOf(WriterCase world, IReadOnlyList<ProtocolFinding> findings)
    {
        var output = world.Output;
        if (world.Transport.Termination is { } t)
        {
            long cut = world.Transport.UpstreamDeliveredBytes - world.OutputWireOffset;
            if (output.FrameTypeAt(cut) == FrameType.Body)
                world.Events.Add(RunEvent.FaultMidBody);
            return new TransportFaultRecord(
                output.FaultObservedAt ?? world.Clock,
                t.Reason,
                output.FaultObservedAt,
                output.BytesWrittenAfterFault
            )
            {
                CutAtOutputByte = cut,
            };
        }
        if (world.StallsThroughDispose && output.FlushCancelledAt is { } gaveUp)
            return new TransportFaultRecord(
                gaveUp,
                "the harness kept the output stalled through disposal and the writer gave up on it (cancelled its pending flush)",
                gaveUp,
                output.BytesWrittenAfterFault
            );
        if (
            EvidenceBuilder.BrokerClosed(
                findings,
                output.FaultObservedAt ?? world.Clock,
                output.FaultObservedAt,
                output.BytesWrittenAfterFault
            ) is
            { } closed
        )
            return closed;
        if (output.FaultObservedAt is { } seen)
            return new TransportFaultRecord(
                seen,
                "the output reported completion",
                seen,
                output.BytesWrittenAfterFault
            );
        return null;
    }
}
