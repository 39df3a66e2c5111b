using System.IO.Pipelines;
using AmqpConformance.FakeBroker;
using AmqpConformance.Harness.Client;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Reports;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// Everything one writer-level case runs on: writer -> <see cref="ControlledOutput"/> -> <see cref="FaultyTransport"/>
/// (virtual time) -> an in-process <see cref="FakeAmqpBroker"/> connection, which validates and records every
/// frame, exactly as a client-level case reaches the broker over TCP. The harness opens the connection itself
/// (handshake and channel.open written straight to the transport), installs the scenario's faults from that point on,
/// and only then creates the writer, so the writer writes nothing but the scenario's publishes. The harness owns the
/// writer's pool and the callers' pool.
/// </summary>
internal sealed class WriterCase : IAsyncDisposable
{
    private readonly Task _downstream;
    private long _completions;

    private WriterCase(
        FrameWriterFactory factory,
        Scenario scenario,
        WriterRunOptions options,
        CaseClock time,
        FakeAmqpBroker broker,
        FaultyTransport transport,
        BrokerConnection connection,
        long outputWireOffset,
        Task downstream
    )
    {
        Time = time;
        Factory = factory;
        Scenario = scenario;
        Options = options;
        Broker = broker;
        Transport = transport;
        Connection = connection;
        OutputWireOffset = outputWireOffset;
        _downstream = downstream;
        Output = new ControlledOutput(
            transport.ClientSide.Output,
            () => Clock,
            scenario.FrameMax,
            scenario.Noise ? scenario.Seed : null,
            TransportFailureStyles.ForSeed(scenario.Seed)
        );
        // Rent noise with the output's noise, and in every case where disposal races a call: that race is about the
        // stretch between a call's entry and its queue, where writers rent.
        bool noisyPool =
            scenario.Noise || scenario.Script?.Any(a => a.Kind == Scenarios.ScriptActionKind.DisposeRacingCall) == true;
        Context = new WriterContext(
            Output,
            noisyPool ? new NoisyArrayPool(WriterPool, scenario.Seed + 1) : WriterPool,
            scenario.FrameMax
        )
        {
            QueueCapacity = scenario.QueueCapacity,
            DrainTimeout = options.DrainTimeoutFor(scenario.StallThroughDispose),
            TimeProvider = time,
        };
        Evidence = new EvidenceBuilder(scenario);
    }

    public FrameWriterFactory Factory { get; }
    public Scenario Scenario { get; }
    public WriterRunOptions Options { get; }
    public FakeAmqpBroker Broker { get; }
    public FaultyTransport Transport { get; }
    public BrokerConnection Connection { get; }
    public ControlledOutput Output { get; }
    public WriterContext Context { get; }
    public TrackingArrayPool WriterPool { get; } = new();
    public TrackingArrayPool CallerPool { get; } = new();
    public RunEvents Events { get; } = new();

    /// <summary>Whether the harness keeps the output stalled until DisposeAsync returns (a scripted scenario with
    /// <see cref="Scenario.StallThroughDispose"/>): the writer's drain timeout can then only expire, and its giving up
    /// counts as a fault.</summary>
    public bool StallsThroughDispose => Scenario.StallThroughDispose && Scenario.Script is not null;

    /// <summary>The wire offset of the writer's first byte: the protocol header and the harness's handshake come before
    /// it.</summary>
    public long OutputWireOffset { get; }

    /// <summary>The case's evidence: its call traces while it runs, and what the runner builds at its end.</summary>
    public EvidenceBuilder Evidence { get; }

    /// <summary>Each publisher's calls, in its order (<see cref="EvidenceBuilder.Traces"/>).</summary>
    public IReadOnlyList<IReadOnlyList<CallTrace>> Traces => Evidence.Traces;

    /// <summary>The lockstep this connection keeps with the case's other connections, or null when the case runs on one
    /// (<see cref="Scenario.Connections"/>).</summary>
    public ConnectionLockstep? Lockstep
    {
        get => Volatile.Read(ref _lockstep);
        set => Volatile.Write(ref _lockstep, value);
    }

    private ConnectionLockstep? _lockstep;

    /// <summary>Before a step of the drivers (publishers let go, a script step): meets the case's other connections, if
    /// any (<see cref="ConnectionLockstep"/>).</summary>
    public Task MeetOtherConnectionsAsync() => Lockstep?.ArriveAsync() ?? Task.CompletedTask;

    /// <summary>Leaves the lockstep with the other connections, once: this connection's steps are over.</summary>
    public void LeaveOtherConnections() => Interlocked.Exchange(ref _lockstep, null)?.Leave();

    /// <summary>The case's disposal, once the runner made it (<see cref="CaseLifecycle"/> registers itself).</summary>
    public CaseLifecycle? Lifecycle { get; set; }

    /// <summary>The writer under test, once created.</summary>
    public IFrameWriter? Writer { get; private set; }

    /// <summary>Calls completed so far (a sign of life the harness waits on when it lets the writer settle).</summary>
    public long Completions => Interlocked.Read(ref _completions);

    /// <summary>Counts one completed call.</summary>
    public void NoteCompletion() => Interlocked.Increment(ref _completions);

    /// <summary>How many times the script driver waited out part of a fault's grace in real time (see
    /// <see cref="RunPhases.FaultGraceWaits"/>).</summary>
    public int FaultGraceWaits { get; set; }

    /// <summary>The real time those waits took together (<see cref="RunPhases.FaultGraceWaited"/>).</summary>
    public TimeSpan FaultGraceWaited { get; set; }

    /// <summary>How many flushes the writer had started when the last stall step ended (-1 before any): a stall step
    /// waits for a flush started after it, so one flush is stalled once.</summary>
    public long FlushesAtLastStall { get; set; } = -1;

    /// <summary>The case's clock, which the harness may move forward (<see cref="CaseClock.Skip"/>); the broker's frame
    /// log reads it.</summary>
    public CaseClock Time { get; }

    /// <summary>Now on the case's clock, as the broker's frame log counts it, so call times compare with frame
    /// times.</summary>
    public TimeSpan Clock => Connection.Log.Elapsed;

    /// <summary>Every call trace, by id.</summary>
    public IEnumerable<CallTrace> AllTraces => Evidence.AllTraces;

    /// <summary>Opens the connection, installs the faults and creates the writer.</summary>
    /// <exception cref="InvalidOperationException">The factory could not create a writer, or the in-process broker
    /// refused the harness's own handshake (a harness bug).</exception>
    public static async Task<WriterCase> OpenAsync(
        FrameWriterFactory factory,
        Scenario scenario,
        WriterRunOptions options,
        CancellationToken cancellationToken
    )
    {
        var transport = FaultyTransport.Create(
            FaultPlan.Empty,
            new FaultyTransportOptions
            {
                TimeMode = FaultTimeMode.Virtual,
                PauseWriterThreshold = scenario.OutputThreshold,
                ResumeWriterThreshold = scenario.OutputThreshold / 2,
                OrderlyCloseAsCompletion = scenario.CloseAsCompletion,
            }
        );
        var time = new CaseClock();
        var broker = FakeAmqpBroker.CreateWithoutListener(
            new FakeAmqpBrokerOptions
            {
                FrameMax = 0,
                HeartbeatSeconds = 0,
                KeepPublished = false,
                HandshakeTimeout = Timeout.InfiniteTimeSpan,
                FrameLog = new FrameLogOptions
                {
                    CaptureBodies = true,
                    RecordSent = false,
                    Clock = time,
                },
            }
        );
        var connection = broker.Serve(transport.BrokerSide);
        try
        {
            // Bounded by the case's bound, not a call's: the handshake is the harness's own, and a short call timeout
            // (a test's, say) on a loaded machine failed cases before the writer was even made.
            using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            timeout.CancelAfter(options.CaseTimeout);
            var client = new HarnessClientOptions { FrameMax = scenario.FrameMax, HeartbeatSeconds = 0 };
            await ClientHandshake.OpenAsync(transport.ClientSide, client, timeout.Token).ConfigureAwait(false);
            var channels = Enumerable.Range(0, scenario.Publishers.Count).Select(scenario.ChannelOf).Distinct().Order();
            await ClientHandshake
                .OpenChannelsAsync(transport.ClientSide, channels, confirms: false, timeout.Token)
                .ConfigureAwait(false);
        }
        catch (Exception ex)
        {
            await transport.DisposeAsync().ConfigureAwait(false);
            await broker.DisposeAsync().ConfigureAwait(false);
            throw new InvalidOperationException(
                $"The harness could not open its in-process connection for \"{scenario}\": {ex.Message}",
                ex
            );
        }
        // The writer's output starts right after the last handshake frame the broker recorded (it records a frame
        // before it answers it). The transport's delivered-bytes counter may lag the broker's reply by a chunk, so it
        // is not used here.
        var lastHandshakeFrame = connection.Log.Snapshot().Last(f => f.Direction == FrameDirection.Received);
        long outputOffset = lastHandshakeFrame.WireOffset + lastHandshakeFrame.WireLength;
        foreach (var fault in scenario.Faults.For(FaultDirection.Upstream))
            transport.UpstreamFaults.Add(fault);
        foreach (var fault in scenario.Faults.For(FaultDirection.Downstream))
            transport.DownstreamFaults.Add(fault);
        if (scenario.StallUntilQuiet)
            transport.UpstreamFaults.Add(new StallFault(0));
        var downstream = Task.Run(() => DrainAsync(transport.ClientSide.Input), CancellationToken.None);
        var world = new WriterCase(
            factory,
            scenario,
            options,
            time,
            broker,
            transport,
            connection,
            outputOffset,
            downstream
        );
        try
        {
            world.Writer = factory.CreateWriter(world.Context);
        }
        catch (Exception ex)
        {
            await world.DisposeAsync().ConfigureAwait(false);
            throw new InvalidOperationException(
                $"The factory \"{factory.Name}\" could not create a writer: {ex.Message}",
                ex
            );
        }
        return world;
    }

    /// <summary>Ends the connection from the client's side (the harness completes the writer's output) and waits,
    /// bounded, for the broker to have read and recorded everything.</summary>
    public async Task EndConnectionAsync()
    {
        try
        {
            await Output.CompleteByHarnessAsync().ConfigureAwait(false);
        }
        catch (InvalidOperationException)
        { /* a writer still inside a write: the transport is torn down below anyway */
        }
        var ended = Connection.Completion;
        if (!await BoundedWait.CompletesWithinAsync(ended, Options.EndConnectionBound).ConfigureAwait(false))
            await Connection.AbortAsync().ConfigureAwait(false);
    }

    /// <summary>Disposes the broker and the transport.</summary>
    public async ValueTask DisposeAsync()
    {
        await Transport.DisposeAsync().ConfigureAwait(false);
        await Broker.DisposeAsync().ConfigureAwait(false);
        try
        {
            await _downstream.ConfigureAwait(false);
        }
        catch (Exception e)
        {
            // the drain ends with the transport (it catches its own failures: this one is unexpected)
            SwallowedExceptions.Record("disposing the case: waiting for the drain of the broker's output", e);
        }
    }

    /// <summary>Reads and discards what the broker sends (acks, a connection.close), so the broker never blocks on its
    /// output; ends with the transport (its reset or disposal) and completes <paramref name="input"/>. The soak drains
    /// its connection with it too.</summary>
    internal static async Task DrainAsync(PipeReader input)
    {
        try
        {
            while (true)
            {
                var result = await input.ReadAsync().ConfigureAwait(false);
                input.AdvanceTo(result.Buffer.End);
                if (result.IsCompleted || result.IsCanceled)
                    break;
            }
        }
        catch (Exception)
        {
            // nothing lost: a reset fault ends the broker's side too (expected in every reset case, so not recorded),
            // and the broker's log holds what the connection saw
        }
        try
        {
            await input.CompleteAsync().ConfigureAwait(false);
        }
        catch (InvalidOperationException) { } // completed already by the reset
    }
}
