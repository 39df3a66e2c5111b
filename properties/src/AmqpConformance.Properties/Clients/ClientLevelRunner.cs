using AmqpConformance.FakeBroker;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Reports;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.Toxiproxy;

namespace AmqpConformance.Properties.Clients;

/// <summary>
/// Runs scenarios against a whole client: one fake broker (strict, recording, any frame_max) and one embedded fault
/// proxy in front of it live as long as this runner; each case puts the scenario's fault plan in force on the proxy as
/// it is (<see cref="FaultProxy.ApplyPlan"/>: its faults and seed, run by the same fault pump as in process), connects a
/// fresh client through it (to the proxy's <see cref="FaultProxy.ListenEndpoint"/>), publishes as the scenario says,
/// closes, and takes the broker's frame log of that connection as evidence, assembled as at writer level
/// (<see cref="EvidenceBuilder"/>), and the proxy's transcript of what it injected
/// (<see cref="RunResult.InjectedFaults"/>).
/// </summary>
/// <remarks>The harness does not own the client's pool or output, so the pools, backpressure, visibility and lifecycle
/// invariants are not observable here. Cancellation "on flush" or "on write" is not observable from outside a client and
/// becomes a racing cancellation, except "on flush" in a stalled case, where it waits until the stall has blocked the
/// client. The scenario's held stall (<see cref="Scenario.StallUntilQuiet"/>) is the proxy's <see cref="FaultProxy.Stall"/>
/// (it stops forwarding and reading the client's bytes, so the client's socket writes block), held until the client stops
/// making progress (or for at most a few seconds); a <see cref="StallFault"/> in the fault plan stalls the proxy's
/// pump, as in process. The plan's offsets count from the connection's first byte (the protocol header), since the client opens the
/// connection itself; at writer level the plan is installed after the harness's handshake.</remarks>
public sealed class ClientLevelRunner : IAsyncDisposable
{
    private const string ProxyName = "amqp";
    private readonly FakeAmqpBroker _broker;
    private readonly FaultProxyRegistry _proxies;
    private readonly FaultProxy _proxy;

    private ClientLevelRunner(FakeAmqpBroker broker, FaultProxyRegistry proxies, FaultProxy proxy)
    {
        _broker = broker;
        _proxies = proxies;
        _proxy = proxy;
    }

    /// <summary>How long one publish may take before it counts as hung (default 3 s, plus the stall's limit in a
    /// stalled case).</summary>
    public TimeSpan CallTimeout { get; init; } = TimeSpan.FromSeconds(3);

    /// <summary>How long connecting and opening the case's channels may take (default 15 s) before the case's first call
    /// fails with the connect error. Not a judged bound, only an end for a client that never connects: it is generous
    /// because the first case of a process compiles the client's code and the harness's (without tiered compilation, as
    /// the template's projects run), which took more than 3 s on a loaded machine and failed a correct client's first
    /// case with <c>failed-without-cause</c> when this bound was <see cref="CallTimeout"/>.</summary>
    public TimeSpan OpenTimeout { get; init; } = TimeSpan.FromSeconds(15);

    /// <summary>How long closing a client's channels, and then its connection, may take (default 2 s each): a
    /// connection whose broker stopped answering must not cost more.</summary>
    public TimeSpan CloseTimeout { get; init; } = TimeSpan.FromSeconds(2);

    /// <summary>Starts the broker and the proxy on loopback ports.</summary>
    public static async Task<ClientLevelRunner> StartAsync(CancellationToken cancellationToken = default)
    {
        var broker = await FakeAmqpBroker
            .StartAsync(
                new FakeAmqpBrokerOptions
                {
                    FrameMax = 0,
                    KeepPublished = false,
                    FrameLog = new FrameLogOptions { CaptureBodies = true },
                },
                cancellationToken
            )
            .ConfigureAwait(false);
        var proxies = new FaultProxyRegistry();
        proxies.CreateProxy(
            new ProxyConfig
            {
                Name = ProxyName,
                Listen = "127.0.0.1:0",
                Upstream = broker.Endpoint.ToString(), // a proxy's config is Toxiproxy's JSON model: "host:port"
                Enabled = true,
            }
        );
        return new ClientLevelRunner(broker, proxies, proxies.GetProxy(ProxyName));
    }

    /// <summary>Runs <paramref name="scenario"/> with a fresh connection of <paramref name="client"/>. Never throws for
    /// what the client does (a failed connect, without a fault in the scenario, fails the first call).</summary>
    public async Task<RunResult> RunAsync(
        ClientAdapter client,
        Scenario scenario,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(client);
        ArgumentNullException.ThrowIfNull(scenario);
        if (scenario.Publishers.SelectMany(p => p).FirstOrDefault(s => s.MethodOnly) is { } methodOnly)
            throw new ArgumentException(
                $"A whole client publishes only; the scenario has a call without content ({methodOnly}).",
                nameof(scenario)
            );
        // The plan as it is (its faults and its seed), run by the same FaultPump as in process: no toxic mapping.
        AppliedFaultPlan faults = _proxy.ApplyPlan(scenario.Faults);
        int index = checked((int)_broker.AcceptedConnections);
        var proxyEndpoint = _proxy.ListenEndpoint
            ?? throw new InvalidOperationException("The runner's fault proxy is not listening.");
        var callerPool = new TrackingArrayPool();
        var evidence = new EvidenceBuilder(scenario);

        IClientSession? session = null;
        FrameLog? log = null;
        bool confirms = scenario.Confirms;
        var events = new RunEvents();
        string? connectError = null;
        try
        {
            using var connectTimeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            connectTimeout.CancelAfter(OpenTimeout);
            session = await client
                .ConnectAsync(
                    new ClientConnectOptions(proxyEndpoint, scenario.FrameMax, confirms),
                    connectTimeout.Token
                )
                .ConfigureAwait(false);
            var connection = await _broker.WaitForConnectionAsync(index, connectTimeout.Token).ConfigureAwait(false);
            log = connection.Log;
            await RunPublishersAsync(session, scenario, evidence, callerPool, log, events, connectTimeout.Token)
                .ConfigureAwait(false);
        }
        catch (Exception ex) when (!cancellationToken.IsCancellationRequested)
        {
            connectError = $"{ex.GetType().Name}: {ex.Message}";
        }
        finally
        {
            faults.Release(); // a plan's stall without a duration ends with the calls, as FaultyTransport.Release does
            if (session is not null)
            {
                var close = session.DisposeAsync().AsTask();
                // A client that fails to close: the frames are still judged.
                await BoundedWait.CompletesWithinAsync(close, CloseTimeout).ConfigureAwait(false);
            }
        }
        // The broker keeps this connection while it is open and for the next 100 to end (FakeAmqpBrokerOptions.Retention).
        BrokerConnection? brokerConnection = _broker.FindConnection(index + 1L);
        if (brokerConnection is not null)
        {
            await BoundedWait
                .CompletesWithinAsync(brokerConnection.Completion, TimeSpan.FromSeconds(2))
                .ConfigureAwait(false);
            if (!brokerConnection.Completion.IsCompleted)
                await brokerConnection.AbortAsync().ConfigureAwait(false);
        }
        // The proxy's side of the case's connections ends with the broker's; then their transcripts are complete.
        await BoundedWait
            .CompletesWithinAsync(faults.WhenConnectionsEnded(), TimeSpan.FromSeconds(2))
            .ConfigureAwait(false);
        _proxy.ClearPlan();
        IReadOnlyList<FaultTranscript> injected = faults.Transcripts();
        log ??= brokerConnection?.Log ?? new FrameLog();
        TimeSpan firstFailure = evidence
            .AllTraces.Where(t => t.Outcome == CallOutcome.Failed)
            .Select(t => t.Ended ?? TimeSpan.Zero)
            .DefaultIfEmpty(log.Elapsed)
            .Min();
        if (
            connectError is not null
            && evidence.AllTraces.All(t => t.Outcome == CallOutcome.Pending)
            && evidence.AllTraces.FirstOrDefault() is { } first
            && scenario.Faults.IsEmpty
        )
        {
            // The client never reached its first call: that call fails with the connect error, and with no fault to
            // explain it the case fails (failed-without-cause), so a client that cannot connect never passes.
            first.Attempted = true;
            first.Complete(log.Elapsed, new IOException("could not connect: " + connectError));
        }
        // The client opened the connection itself: every frame after its protocol header is the client's.
        var sources = new EvidenceSources(
            log,
            AmqpConstants.ProtocolHeader.Length,
            brokerConnection?.FrameMax ?? scenario.FrameMax,
            findings => FaultOf(scenario, injected, findings, firstFailure)
        )
        {
            ConfirmsEnabled = confirms,
        };
        var built = evidence.Build(sources);
        if (built.Fault is not null)
            foreach (var _ in evidence.AllTraces.Where(t => t.Attempted && t.Started > firstFailure))
                events.Add(RunEvent.CallAfterFault);
        return new RunResult(scenario, built, log) { Events = events, InjectedFaults = injected };
    }

    /// <summary>The exception <paramref name="call"/> (completed) ended with, null if it succeeded. Awaiting it
    /// rethrows the client's own exception, a cancellation's included, with the stack trace of where the client threw
    /// it, which known deviations are scoped by (<see cref="KnownDeviation.CallScope"/>).</summary>
    private static async Task<Exception?> ThrownByAsync(Task call)
    {
        try
        {
            await call.ConfigureAwait(false);
            return null;
        }
        catch (Exception thrown)
        {
            return thrown;
        }
    }

    /// <summary>The transport fault of a client-level case: the scenario's fault plan, run by the proxy, when it acted
    /// on the connection (a stall, a black hole, bytes dropped, a reset or a close reached; where they acted is in the
    /// description), else the broker closing the connection for a protocol error (which ends the calls in flight the
    /// same way); at the first failed call (or the end of the case), since the harness cannot see when the client
    /// noticed. A plan that never reached a disruptive fault (a reset past the case's last byte, latency and slicing
    /// alone) is no fault: a call that failed or was lost then has nothing to excuse it.</summary>
    private static TransportFaultRecord? FaultOf(
        Scenario scenario,
        IReadOnlyList<FaultTranscript> injected,
        IReadOnlyList<ProtocolFinding> findings,
        TimeSpan firstFailure
    ) =>
        !scenario.Faults.IsEmpty && Disruptions(injected).Any()
            ? new TransportFaultRecord(
                firstFailure,
                $"proxy fault plan {scenario.Faults.ToJson()}; injected: {FaultPoints(injected)}",
                null,
                0
            )
            : EvidenceBuilder.BrokerClosed(findings, firstFailure, null, 0);

    /// <summary>Where the proxy's pumps acted on the case's connections (stalls, black holes, resets, closes, with
    /// their stream offsets), for the fault's description.</summary>
    private static string FaultPoints(IReadOnlyList<FaultTranscript> transcripts) =>
        string.Join(
            ", ",
            Disruptions(transcripts)
                .Where(e => e.Kind != TranscriptEventKind.Dropped)
                .Select(e => $"{e.Kind} {ToxicStreams.Of(e.Direction)} @{e.Offset}")
                .DefaultIfEmpty("bytes dropped")
        );

    /// <summary>What the proxy did that a client may fail or lose a publish over: stalls, black holes, dropped bytes,
    /// resets and closes, in order.</summary>
    private static IEnumerable<TranscriptEntry> Disruptions(IReadOnlyList<FaultTranscript> transcripts) =>
        transcripts
            .SelectMany(t => t.Snapshot())
            .Where(e =>
                e.Kind
                    is TranscriptEventKind.StallStarted
                        or TranscriptEventKind.BlackHoleOpened
                        or TranscriptEventKind.Dropped
                        or TranscriptEventKind.Reset
                        or TranscriptEventKind.Closed
            );

    private async Task RunPublishersAsync(
        IClientSession session,
        Scenario scenario,
        EvidenceBuilder evidence,
        TrackingArrayPool callerPool,
        FrameLog log,
        RunEvents events,
        CancellationToken openTimeout
    )
    {
        var channels = new Dictionary<ushort, (IClientPublisher Publisher, SemaphoreSlim Lock)>();
        var stall = scenario.StallUntilQuiet ? new ProxyStall(_proxy) : null;
        try
        {
            for (int p = 0; p < scenario.Publishers.Count; p++)
            {
                ushort logical = scenario.ChannelOf(p);
                if (!channels.ContainsKey(logical))
                    channels[logical] = (
                        await session.OpenChannelAsync(openTimeout).ConfigureAwait(false),
                        new SemaphoreSlim(1, 1)
                    );
            }
            stall?.Begin();
            var start = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            var tasks = new List<Task>();
            for (int p = 0; p < scenario.Publishers.Count; p++)
            {
                var (publisher, gate) = channels[scenario.ChannelOf(p)];
                var steps = scenario.Publishers[p];
                var mine = evidence.Traces[p];
                tasks.Add(
                    Task.Run(
                        async () =>
                        {
                            await start.Task.ConfigureAwait(false);
                            for (int i = 0; i < steps.Count; i++)
                                if (
                                    !await PublishAsync(
                                            publisher,
                                            gate,
                                            steps[i],
                                            mine[i],
                                            callerPool,
                                            log,
                                            events,
                                            stall
                                        )
                                        .ConfigureAwait(false)
                                )
                                    break;
                        },
                        CancellationToken.None
                    )
                );
            }
            start.SetResult();
            var all = Task.WhenAll(tasks);
            if (stall is not null)
                await stall.HoldUntilQuietAsync(all, evidence.AllTraces, events).ConfigureAwait(false);
            await all.ConfigureAwait(false);
        }
        finally
        {
            stall?.End();
            // Closed together under one time limit: a connection whose broker stopped answering must not cost a limit
            // per channel.
            var closing = Task.WhenAll(channels.Values.Select(c => c.Publisher.DisposeAsync().AsTask()));
            try
            {
                await closing.WaitAsync(CloseTimeout, CancellationToken.None).ConfigureAwait(false);
            }
            catch (Exception e)
            {
                // closing the channels of a broken connection: the case's verdict does not depend on it
                SwallowedExceptions.Record("closing the client's channels", e);
            }
        }
    }

    private async Task<bool> PublishAsync(
        IClientPublisher publisher,
        SemaphoreSlim gate,
        CallStep step,
        CallTrace trace,
        TrackingArrayPool callerPool,
        FrameLog log,
        RunEvents events,
        ProxyStall? stall
    )
    {
        await gate.WaitAsync().ConfigureAwait(false);
        try
        {
            byte[] array = callerPool.Rent(step.SliceOffset + step.BodyLength + step.SliceSlack);
            var body = array.AsMemory(step.SliceOffset, step.BodyLength);
            trace.ExpectedBody.CopyTo(body);
            using var cts = new CancellationTokenSource();
            if (step.Cancel == CancelKind.Before)
                cts.Cancel();
            trace.Channel = publisher.ChannelNumber;
            trace.Started = log.Elapsed;
            trace.Attempted = true;
            Task<ulong?> call;
            if (step.WithoutToken)
                events.Add(RunEvent.CallWithoutToken);
            try
            {
                call = publisher.PublishAsync(
                    trace.RoutingKey,
                    body,
                    step.HeaderBytes,
                    step.WithoutToken ? CancellationToken.None : cts.Token
                );
            }
            catch (Exception ex)
            {
                call = Task.FromException<ulong?>(ex);
            }
            // A client's flushes and writes are out of sight: "on a flush" and "on a write" become a cancellation racing
            // the call, and one that lands while the proxy stalls is a cancellation during a pending flush. In a stalled
            // case, "on a flush" waits until the stall has blocked the client (its socket write stuck part-way), then
            // cancels.
            if (step.Cancel == CancelKind.OnFlush && stall is not null && stall.CancelWhenBlocked(cts, call))
                events.Add(RunEvent.CancelDuringFlush);
            else if (step.Cancel is CancelKind.Racing or CancelKind.OnFlush or CancelKind.OnWrite)
            {
                events.Add(stall is { IsStalled: true } ? RunEvent.CancelDuringFlush : RunEvent.CancelRacingCompletion);
                _ = Task.Run(() =>
                {
                    try
                    {
                        cts.Cancel();
                    }
                    catch (ObjectDisposedException) { } // the call completed and its source was disposed: nothing to cancel
                });
            }
            // Counted in time the process could run (SchedulingLag): a loaded machine's time off the CPU is given back.
            if (
                !await BoundedWait
                    .CompletesWithinRunnableAsync(call, CallTimeout + (stall?.Limit ?? TimeSpan.Zero))
                    .ConfigureAwait(false)
            )
                return false;
            trace.Complete(log.Elapsed, await ThrownByAsync(call).ConfigureAwait(false));
            stall?.NoteProgress();
            if (call.IsCompletedSuccessfully)
                trace.PublishSequenceNumber = call.Result;
            if (step.Cancel == CancelKind.AfterCompletion)
            {
                events.Add(RunEvent.CancelAfterCompletion);
                cts.Cancel(); // the call is over: a client that left a registration on the token must not let it touch anything
            }
            callerPool.Return(array);
            trace.Poisoned = true;
            return true;
        }
        finally
        {
            gate.Release();
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        await _proxies.DisposeAsync().ConfigureAwait(false);
        await _broker.DisposeAsync().ConfigureAwait(false);
    }
}
