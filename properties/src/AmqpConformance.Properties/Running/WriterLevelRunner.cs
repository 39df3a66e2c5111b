using System.Diagnostics;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// Runs a <see cref="Scenario"/> against a writer from any <see cref="FrameWriterFactory"/>, in process: the writer writes through
/// the harness's <see cref="ControlledOutput"/> into a faulty transport and on into the in-process fake broker, which records and
/// validates every frame (see <see cref="WriterCase"/>). The harness owns the writer's pool and the callers' pool, so it sees every
/// rental, and it poisons each caller's body as soon as the call completes (or its owner is disposed).
/// </summary>
/// <remarks>
/// <para>The order of a run: open the connection; run the calls (free-running or scripted); then, unless the script already did,
/// check that every successful call's bytes were flushed (<see cref="CaseObserver.CheckVisibilityAsync"/>) before anything else
/// happens, dispose the writer (bounded), let it settle so late writes show, and only then complete the output, end the
/// connection and collect the broker's frame log as the evidence.</para>
/// <para>Never throws for anything the writer does: hangs, exceptions and misuse all end up in the evidence.</para>
/// </remarks>
public static class WriterLevelRunner
{
    /// <summary>Runs <paramref name="scenario"/> against a fresh writer from <paramref name="factory"/>.</summary>
    /// <exception cref="InvalidOperationException">The factory could not create a writer.</exception>
    public static async Task<RunResult> RunAsync(FrameWriterFactory factory, Scenario scenario, WriterRunOptions? options = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(factory);
        ArgumentNullException.ThrowIfNull(scenario);
        options ??= WriterRunOptions.Default;
        long started = Stopwatch.GetTimestamp();
        await using var world = await WriterCase.OpenAsync(factory, scenario, options, cancellationToken).ConfigureAwait(false);
        long opened = Stopwatch.GetTimestamp();
        var calls = new CallLauncher(world);
        var observer = new CaseObserver(world);
        var lifecycle = new CaseLifecycle(world, observer);

        if (scenario.Script is null) await FreeRunDriver.RunAsync(world, calls, observer).ConfigureAwait(false);
        else await ScriptDriver.RunAsync(world, calls, observer, lifecycle).ConfigureAwait(false);

        long driven = Stopwatch.GetTimestamp();
        if (world.StallsThroughDispose) await lifecycle.AwaitAsync().ConfigureAwait(false); // the output stays stalled until then
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
        var evidence = Evidence(world, observer, lifecycle);
        var phases = new RunPhases(Stopwatch.GetElapsedTime(started, opened), Stopwatch.GetElapsedTime(opened, driven),
            Stopwatch.GetElapsedTime(driven, ended), Stopwatch.GetElapsedTime(ended)) { Skipped = world.Time.Skipped, FaultGraceWaits = world.FaultGraceWaits };
        return new RunResult(scenario, evidence, world.Connection.Log) { Events = world.Events, Phases = phases };
    }

    private static ConformanceEvidence Evidence(WriterCase world, CaseObserver observer, CaseLifecycle lifecycle)
    {
        var log = world.Connection.Log;
        var frames = log.Snapshot().Where(f => f.Direction == FrameDirection.Received && f.WireOffset >= world.OutputWireOffset).ToList();
        var findings = log.Findings();
        var fault = FaultOf(world, findings);
        return new ConformanceEvidence
        {
            Frames = frames,
            Calls = [.. world.AllTraces.Where(t => t.Attempted).Select(t => t.Freeze(world.Output.EndOf(t.Id)))],
            FrameMax = world.Scenario.FrameMax,
            Pool = world.WriterPool.Verify(),
            CallerArrayFindings = [.. world.CallerPool.Verify().Findings.Where(f => f.Kind == Harness.Pooling.PoolFindingKind.WriteAfterReturn)],
            Findings = findings,
            TrailingPartialBytes = world.Output.PartialFrameBytes,
            Fault = fault,
            Lifecycle = lifecycle.Record(),
            VisibilityLapses = observer.Lapses,
            Backpressure = observer.Backpressure(),
            OutputWireOffset = world.OutputWireOffset,
            DeclaredCompletion = world.Factory.Completion,
            OutputDeliveryTracked = world.Output.Followed,
        };
    }

    /// <summary>The transport fault of the run: injected (reset, closed), the broker closing the connection, or the output reporting
    /// completion; null when the connection stayed healthy. Counts a cut inside a body frame as <see cref="RunEvent.FaultMidBody"/>.</summary>
    private static TransportFaultRecord? FaultOf(WriterCase world, IReadOnlyList<ProtocolFinding> findings)
    {
        var output = world.Output;
        if (world.Transport.Termination is { } t)
        {
            long cut = world.Transport.UpstreamDeliveredBytes - world.OutputWireOffset;
            if (output.FrameTypeAt(cut) == FrameType.Body) world.Events.Add(RunEvent.FaultMidBody);
            return new TransportFaultRecord(output.FaultObservedAt ?? world.Clock, t.Reason, output.FaultObservedAt, output.BytesWrittenAfterFault)
            {
                CutAtOutputByte = cut,
            };
        }
        if (world.StallsThroughDispose && output.FlushCancelledAt is { } gaveUp)
            return new TransportFaultRecord(gaveUp, "the harness kept the output stalled through disposal and the writer gave up on it (cancelled its pending flush)",
                gaveUp, output.BytesWrittenAfterFault);
        if (findings.FirstOrDefault(f => f.ClosedConnection) is { } closing)
            return new TransportFaultRecord(output.FaultObservedAt ?? world.Clock, $"{BrokerChecker.BrokerClosedPrefix}: {closing.Message}",
                output.FaultObservedAt, output.BytesWrittenAfterFault);
        if (output.FaultObservedAt is { } seen)
            return new TransportFaultRecord(seen, "the output reported completion", seen, output.BytesWrittenAfterFault);
        return null;
    }
}
