using AmqpConformance.FakeBroker;
using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.Toxiproxy;

namespace AmqpConformance.Properties.Clients;

/// <summary>
/// Runs scenarios against a whole client: one fake broker (strict, recording, any frame_max) and one embedded fault
/// proxy in front of it live as long as this runner; each case sets the proxy's toxics from the scenario's fault plan,
/// connects a fresh client through it, publishes as the scenario says, closes, and takes the broker's frame log of that
/// connection as evidence.
/// </summary>
/// <remarks>The harness does not own the client's pool or output, so the pools, backpressure, visibility and lifecycle
/// invariants are not observable here. Cancellation "on flush" is not observable from outside a client and becomes a
/// racing cancellation. A stall is a bandwidth toxic of 1 KB/s on the proxy, held until the client stops making
/// progress (or for at most a few seconds).</remarks>
public sealed class ClientLevelRunner : IAsyncDisposable
{
    private const string ProxyName = "amqp";
    private readonly FakeBroker.FakeBroker _broker;
    private readonly FaultProxyRegistry _proxies;
    private readonly FaultProxy _proxy;

    private ClientLevelRunner(FakeBroker.FakeBroker broker, FaultProxyRegistry proxies, FaultProxy proxy)
    {
        _broker = broker;
        _proxies = proxies;
        _proxy = proxy;
    }

    /// <summary>How long one publish may take before it counts as hung (default 3 s, plus the stall's limit in a
    /// stalled case).</summary>
    public TimeSpan CallTimeout { get; init; } = TimeSpan.FromSeconds(3);

    /// <summary>How long closing a client's channels, and then its connection, may take (default 2 s each): a
    /// connection whose broker stopped answering must not cost more.</summary>
    public TimeSpan CloseTimeout { get; init; } = TimeSpan.FromSeconds(2);

    /// <summary>Starts the broker and the proxy on loopback ports.</summary>
    public static async Task<ClientLevelRunner> StartAsync(CancellationToken cancellationToken = default)
    {
        var broker = await FakeBroker
            .FakeBroker.StartAsync(
                new FakeBrokerOptions
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
                Upstream = $"127.0.0.1:{broker.Port}",
                Enabled = true,
            }
        );
        return new ClientLevelRunner(broker, proxies, proxies.GetProxy(ProxyName));
    }

    /// <summary>Runs <paramref name="scenario"/> with a fresh connection of <paramref name="client"/>. Never throws for
    /// what the client does (a failed connect is reported as a hung or failed first call).</summary>
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
        _proxy.ResetToxics();
        foreach (var toxic in FaultPlanToxics.Map(scenario.Faults).Toxics)
            _proxy.AddToxic(toxic);
        int index = checked((int)_broker.AcceptedConnections);
        string listen = _proxy.Listen;
        int port = int.Parse(
            listen[(listen.LastIndexOf(':') + 1)..],
            System.Globalization.CultureInfo.InvariantCulture
        );
        var callerPool = new TrackingArrayPool();
        var traces = new List<CallTrace>();
        int nextId = 0;
        for (int p = 0; p < scenario.Publishers.Count; p++)
        for (int i = 0; i < scenario.Publishers[p].Count; i++)
            traces.Add(
                new CallTrace
                {
                    Id = nextId++,
                    Publisher = p,
                    IndexInPublisher = i,
                    Channel = 0,
                    ExpectedBody = BodyPattern.Create(scenario.Seed, nextId - 1, scenario.Publishers[p][i].BodyLength),
                }
            );

        IClientSession? session = null;
        FrameLog? log = null;
        bool confirms = scenario.Confirms;
        var events = new RunEvents();
        string? connectError = null;
        try
        {
            using var connectTimeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            connectTimeout.CancelAfter(CallTimeout);
            session = await client
                .ConnectAsync(
                    new ClientConnectOptions("127.0.0.1", port, scenario.FrameMax, confirms),
                    connectTimeout.Token
                )
                .ConfigureAwait(false);
            var connection = await _broker.WaitForConnectionAsync(index, connectTimeout.Token).ConfigureAwait(false);
            log = connection.Log;
            await RunPublishersAsync(session, scenario, traces, callerPool, log, events, connectTimeout.Token)
                .ConfigureAwait(false);
        }
        catch (Exception ex) when (!cancellationToken.IsCancellationRequested)
        {
            connectError = $"{ex.GetType().Name}: {ex.Message}";
        }
        finally
        {
            if (session is not null)
            {
                var close = session.DisposeAsync().AsTask();
                // A client that fails to close: the frames are still judged.
                await BoundedWait.CompletesWithinAsync(close, CloseTimeout).ConfigureAwait(false);
            }
        }
        // The broker keeps this connection while it is open and for the next 100 to end (FakeBrokerOptions.Retention).
        BrokerConnection? brokerConnection = _broker.FindConnection(index + 1L);
        if (brokerConnection is not null)
        {
            await BoundedWait
                .CompletesWithinAsync(brokerConnection.Completion, TimeSpan.FromSeconds(2))
                .ConfigureAwait(false);
            if (!brokerConnection.Completion.IsCompleted)
                await brokerConnection.AbortAsync().ConfigureAwait(false);
        }
        log ??= brokerConnection?.Log ?? new FrameLog();
        // A connection the broker closed for a protocol error ends the same way a transport fault does for the calls in
        // flight.
        var closing = log.Findings().FirstOrDefault(f => f.ClosedConnection);
        TimeSpan firstFailure = traces
            .Where(t => t.Outcome == CallOutcome.Failed)
            .Select(t => t.Ended ?? TimeSpan.Zero)
            .DefaultIfEmpty(log.Elapsed)
            .Min();
        TransportFaultRecord? fault =
            !scenario.Faults.IsEmpty
                ? new TransportFaultRecord(firstFailure, "proxy toxics: " + scenario.Faults.ToJson(), null, 0)
            : closing is not null
                ? new TransportFaultRecord(
                    firstFailure,
                    $"{BrokerChecker.BrokerClosedPrefix}: {closing.Message}",
                    null,
                    0
                )
            : null;
        if (
            connectError is not null
            && traces.All(t => t.Outcome == CallOutcome.Pending)
            && traces.Count > 0
            && scenario.Faults.IsEmpty
        )
            traces[0].Error = "could not connect: " + connectError;
        var evidence = new ConformanceEvidence
        {
            Frames = [.. log.Snapshot().Where(f => f.Direction == FrameDirection.Received)],
            Calls = [.. traces.Where(t => t.Attempted).Select(t => t.Freeze())],
            FrameMax = brokerConnection?.FrameMax ?? scenario.FrameMax,
            Findings = log.Findings(),
            Fault = fault,
            ConfirmsEnabled = confirms,
            OutputWireOffset = 8,
        };
        if (fault is not null)
            foreach (var _ in traces.Where(t => t.Attempted && t.Started > firstFailure))
                events.Add(RunEvent.CallAfterFault);
        return new RunResult(scenario, evidence, log) { Events = events };
    }

    private async Task RunPublishersAsync(
        IClientSession session,
        Scenario scenario,
        List<CallTrace> traces,
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
            int offset = 0;
            for (int p = 0; p < scenario.Publishers.Count; p++)
            {
                var (publisher, gate) = channels[scenario.ChannelOf(p)];
                var steps = scenario.Publishers[p];
                var mine = traces.GetRange(offset, steps.Count);
                offset += steps.Count;
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
                await stall.HoldUntilQuietAsync(all, traces, events).ConfigureAwait(false);
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
            catch (Exception)
            { /* closing the channels of a broken connection */
            }
        }
    }

    private async Task<bool> PublishAsync(
        IClientPublisher publisher,
        SemaphoreSlim gate,
        PublishStep step,
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
            // A client's flushes are out of sight: "on a flush" becomes a cancellation racing the call, and one that
            // lands while the proxy stalls is a cancellation during a pending flush.
            if (step.Cancel is CancelKind.Racing or CancelKind.OnFlush)
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
            trace.Complete(
                log.Elapsed,
                call.Exception?.InnerException ?? (call.IsCanceled ? new OperationCanceledException() : null)
            );
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
