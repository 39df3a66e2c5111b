using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// Assembles the evidence of one case, the one place that does, for the writer-level runner
/// (<see cref="WriterLevelRunner"/>) and the client-level runner (<see cref="Clients.ClientLevelRunner"/>) alike. Made
/// when the case opens, it holds the case's call traces, which the case's drivers fill in as the calls run; when the
/// case has ended it reads the broker's record of the connection and freezes the traces into a
/// <see cref="ConformanceEvidence"/>.
/// </summary>
/// <remarks>
/// <para>Contract:</para>
/// <list type="bullet">
/// <item><see cref="Traces"/>: one trace per step of the scenario, each publisher's in its order; ids count from 0
/// through the publishers in order (publisher 0's steps first), so a call's id, routing key and expected body
/// (<see cref="BodyPattern"/>, empty for a call without content) depend on the scenario alone.</item>
/// <item>Frames: those the broker received from <see cref="EvidenceSources.OutputWireOffset"/> on, in wire order.</item>
/// <item>Calls: the traces of the calls made (<see cref="CallTrace.Attempted"/>), frozen; where the harness followed
/// the writer's output, each with where its command ends in it and the real time it had to act on a fault seen
/// before it started.</item>
/// <item>Fault: what <see cref="EvidenceSources.FaultOf"/> tells from the broker's findings, read once.</item>
/// <item>Pools, caller arrays, trailing bytes, lifecycle, visibility, backpressure, declared completion, output
/// tracking and concurrent output use: from <see cref="EvidenceSources.Writer"/>, and left at "not observed" where
/// there is none (client level).</item>
/// </list>
/// <para>Call <see cref="Build"/> once the case ended (the connection completed, or was aborted) and its calls are
/// done; <see cref="BuildHung"/> for a case abandoned while its threads still run.</para>
/// </remarks>
internal sealed class EvidenceBuilder
{
    /// <summary>Makes the traces of <paramref name="scenario"/>'s calls.</summary>
    public EvidenceBuilder(Scenario scenario)
    {
        Scenario = scenario;
        Traces = TracesOf(scenario);
    }

    /// <summary>The case's scenario.</summary>
    public Scenario Scenario { get; }

    /// <summary>Each publisher's calls, in its order.</summary>
    public IReadOnlyList<IReadOnlyList<CallTrace>> Traces { get; }

    /// <summary>Every call trace, by id.</summary>
    public IEnumerable<CallTrace> AllTraces => Traces.SelectMany(t => t);

    /// <summary>The evidence of the ended case, read from <paramref name="sources"/>.</summary>
    public ConformanceEvidence Build(EvidenceSources sources)
    {
        ArgumentNullException.ThrowIfNull(sources);
        var log = sources.Log;
        var frames = log.Snapshot()
            .Where(f => f.Direction == FrameDirection.Received && f.WireOffset >= sources.OutputWireOffset)
            .ToList();
        var findings = log.Findings();
        var fault = sources.FaultOf(findings);
        var writer = sources.Writer;
        var output = writer?.Output;
        return new ConformanceEvidence
        {
            Frames = frames,
            Calls =
            [
                .. AllTraces
                    .Where(t => t.Attempted)
                    .Select(t => t.Freeze(output?.EndOf(t.Id), RunnableAfterFaultSeen(output, fault, t))),
            ],
            FrameMax = sources.FrameMax,
            Pool = writer?.WriterPool.Verify(),
            CallerArrayFindings = writer is null
                ? []
                : [.. writer.CallerPool.Verify().Findings.Where(f => f.Kind == PoolFindingKind.WriteAfterReturn)],
            Findings = findings,
            TrailingPartialBytes = output?.PartialFrameBytes ?? 0,
            Fault = fault,
            Lifecycle = writer?.Lifecycle.Record(),
            VisibilityLapses = writer?.Observer.Lapses ?? [],
            Backpressure = writer?.Observer.Backpressure(),
            ConfirmsEnabled = sources.ConfirmsEnabled,
            OutputWireOffset = sources.OutputWireOffset,
            DeclaredCompletion = writer?.DeclaredCompletion ?? default,
            OutputDeliveryTracked = output?.Followed ?? false,
            ConcurrentOutputUse = output?.ConcurrentUse,
        };
    }

    /// <summary>The evidence of a case that did not end within its bound, marked with <paramref name="hung"/> (what the
    /// harness is stuck in): what <see cref="Build"/> can read while the case's threads still run, or, where the
    /// case's objects in use by those threads cannot be read, no frames and no calls, with why in
    /// <see cref="ConformanceEvidence.CaseHung"/>.</summary>
    public ConformanceEvidence BuildHung(EvidenceSources sources, string hung)
    {
        ArgumentNullException.ThrowIfNull(sources);
        try
        {
            return Build(sources) with { CaseHung = hung };
        }
        catch (Exception ex) when (ex is InvalidOperationException or ArgumentException or NullReferenceException)
        {
            // The case's objects are still in use by its stuck threads: keep what can be read safely.
            return new ConformanceEvidence
            {
                Frames = [],
                Calls = [],
                FrameMax = Scenario.FrameMax,
                CaseHung = hung + $" (evidence incomplete: {ex.Message})",
            };
        }
    }

    /// <summary>The fault both levels tell alike: the broker closed the connection for a protocol error (the first
    /// finding that closed it, if any), which ends the calls in flight as a transport fault does.</summary>
    /// <param name="findings">The broker's findings.</param>
    /// <param name="at">When, on the case's clock.</param>
    /// <param name="observedAt">When the output reported it to the writer; null where the harness does not
    /// know.</param>
    /// <param name="bytesWrittenAfterFault">Bytes the writer put into its output after that (0 where the harness does
    /// not know).</param>
    public static TransportFaultRecord? BrokerClosed(
        IReadOnlyList<ProtocolFinding> findings,
        TimeSpan at,
        TimeSpan? observedAt,
        long bytesWrittenAfterFault
    ) =>
        findings.FirstOrDefault(f => f.ClosedConnection) is { } closing
            ? new TransportFaultRecord(
                at,
                $"{BrokerChecker.BrokerClosedPrefix}: {closing.Message}",
                observedAt,
                bytesWrittenAfterFault
            )
            : null;

    /// <summary>The real time, less the scheduling lag, from the moment the writer saw <paramref name="fault"/> in its
    /// output to the start of <paramref name="trace"/>; null if the call started before it, the fault is not the
    /// output's (a writer's own giving up during disposal), or the harness does not own the output.</summary>
    private static TimeSpan? RunnableAfterFaultSeen(
        ControlledOutput? output,
        TransportFaultRecord? fault,
        CallTrace trace
    ) =>
        output is not null
        && fault?.ObservedAt is { } seen
        && seen == output.FaultObservedAt
        && output.FaultObservedTimestamp is { } at
        && trace.StartedTimestamp > at
            ? SchedulingLag.Process.RunnableBetween(at, trace.StartedTimestamp)
            : null;

    private static List<IReadOnlyList<CallTrace>> TracesOf(Scenario scenario)
    {
        var all = new List<IReadOnlyList<CallTrace>>();
        int nextId = 0;
        for (int p = 0; p < scenario.Publishers.Count; p++)
        {
            var steps = scenario.Publishers[p];
            var mine = new List<CallTrace>(steps.Count);
            for (int i = 0; i < steps.Count; i++, nextId++)
                mine.Add(
                    new CallTrace
                    {
                        Id = nextId,
                        Publisher = p,
                        IndexInPublisher = i,
                        Channel = steps[i].ConnectionLevel || steps[i].Heartbeat ? (ushort)0 : scenario.ChannelOf(p),
                        ExpectedBody = BodyPattern.Create(
                            scenario.Seed,
                            nextId,
                            steps[i].MethodOnly ? 0 : steps[i].BodyLength
                        ),
                        HasContent = !steps[i].MethodOnly,
                        Heartbeat = steps[i].Heartbeat,
                    }
                );
            all.Add(mine);
        }
        return all;
    }
}
