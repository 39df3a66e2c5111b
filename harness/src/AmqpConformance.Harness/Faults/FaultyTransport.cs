using System.IO.Pipelines;
using AmqpConformance.Protocol.Transport;

namespace AmqpConformance.Harness.Faults;

/// <summary>
/// An in-process connection between a client (the frame writer under test) and a broker that applies a
/// <see cref="FaultPlan"/>: give <see cref="ClientSide"/>'s output to the writer and <see cref="BrokerSide"/>
/// to the broker (<c>broker.Serve(transport.BrokerSide)</c>).
/// </summary>
/// <remarks>
/// <para>Faults surface as a socket's would. A reset (<see cref="ResetPeerFault"/>) makes the writer's next FlushAsync
/// throw <see cref="TransportResetException"/> and the client's reads throw it too; the broker's input keeps every byte
/// that got through and then ends (a stream that stops mid-frame), and its writes fail. An orderly close
/// (<see cref="LimitDataFault"/>, black hole timeout or removal) ends both inputs after the delivered bytes and makes
/// later writes throw <see cref="TransportClosedException"/>. A stall stops reading, so the sender's FlushAsync waits
/// once <see cref="FaultyTransportOptions.PauseWriterThreshold"/> bytes are held: backpressure is real and bounded. A
/// black hole swallows bytes.</para>
/// <para>Determinism: the same plan and the same sequence of flushes on each side give the same
/// <see cref="Transcript"/> (chunk boundaries, delays, fault points), in either time mode.</para>
/// <para>Ownership: the transport owns its pipes. The client and broker complete the writers they write
/// to when they are done (a writer under test does not; its harness does). <see cref="DisposeAsync"/>
/// closes whatever is still open and waits for the pumps.</para>
/// </remarks>
public sealed class FaultyTransport : IAsyncDisposable
{
    private readonly CancellationTokenSource _stop = new();
    private readonly ChunkPipe _upstreamSource;
    private readonly ChunkPipe _downstreamSource;
    private readonly Pipe _upstreamSink;
    private readonly Pipe _downstreamSink;
    private readonly FaultPump _upstream;
    private readonly FaultPump _downstream;
    private readonly bool _orderlyCloseAsCompletion;
    private FaultTermination? _termination;

    private FaultyTransport(FaultPlan plan, FaultyTransportOptions options)
    {
        Plan = plan;
        _orderlyCloseAsCompletion = options.OrderlyCloseAsCompletion;
        TimeProvider time = options.TimeProvider ?? TimeProvider.System;
        var pipeOptions = new PipeOptions(
            pool: TransportMemoryPool.Instance,
            pauseWriterThreshold: options.PauseWriterThreshold,
            resumeWriterThreshold: options.ResumeWriterThreshold,
            useSynchronizationContext: false
        );
        _upstreamSource = new ChunkPipe(pipeOptions, time);
        _downstreamSource = new ChunkPipe(pipeOptions, time);
        _upstreamSink = new Pipe(pipeOptions);
        _downstreamSink = new Pipe(pipeOptions);
        UpstreamFaults = new LiveFaultList(plan.For(FaultDirection.Upstream));
        DownstreamFaults = new LiveFaultList(plan.For(FaultDirection.Downstream));
        _upstream = new FaultPump(
            FaultDirection.Upstream,
            _upstreamSource,
            _upstreamSink.Writer,
            UpstreamFaults,
            plan.Seed,
            new FaultClock(options.TimeMode, time),
            Transcript,
            Terminate
        );
        _downstream = new FaultPump(
            FaultDirection.Downstream,
            _downstreamSource,
            _downstreamSink.Writer,
            DownstreamFaults,
            plan.Seed,
            new FaultClock(options.TimeMode, time),
            Transcript,
            Terminate
        );
        ClientSide = new DuplexPipe(_downstreamSink.Reader, _upstreamSource.Writer);
        BrokerSide = new DuplexPipe(_upstreamSink.Reader, _downstreamSource.Writer);
        Completion = Task.WhenAll(
            RunAsync(_upstream, _upstreamSource, _upstreamSink),
            RunAsync(_downstream, _downstreamSource, _downstreamSink)
        );
    }

    /// <summary>Validates <paramref name="plan"/> and starts a transport applying it.</summary>
    /// <exception cref="ArgumentException">A fault value is out of range.</exception>
    public static FaultyTransport Create(FaultPlan plan, FaultyTransportOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(plan);
        plan.Validate();
        return new FaultyTransport(plan, options ?? FaultyTransportOptions.Default);
    }

    /// <summary>The plan this transport was created with.</summary>
    public FaultPlan Plan { get; }

    /// <summary>The client's end: Output is where the writer writes, Input is what the broker sent.</summary>
    public IDuplexPipe ClientSide { get; }

    /// <summary>The broker's end: Input is what the client sent (after faults), Output is what it sends.</summary>
    public IDuplexPipe BrokerSide { get; }

    /// <summary>What the pumps did.</summary>
    public FaultTranscript Transcript { get; } = new();

    /// <summary>The faults in force client to broker; add or remove to change them mid-connection.</summary>
    public LiveFaultList UpstreamFaults { get; }

    /// <summary>The faults in force broker to client.</summary>
    public LiveFaultList DownstreamFaults { get; }

    /// <summary>Completes when both directions stopped (ended, failed or terminated). Never faults.</summary>
    public Task Completion { get; }

    /// <summary>How a fault ended the connection; null while it has not.</summary>
    public FaultTermination? Termination => Volatile.Read(ref _termination);

    /// <summary>Bytes the client flushed that the upstream link has not taken yet (bounded by the pause
    /// threshold for a writer that awaits its flushes).</summary>
    public long UpstreamBacklogBytes => _upstreamSource.BacklogBytes;

    /// <summary>The largest <see cref="UpstreamBacklogBytes"/> seen.</summary>
    public long PeakUpstreamBacklogBytes => _upstreamSource.PeakBacklogBytes;

    /// <summary>Bytes the broker received so far (after faults).</summary>
    public long UpstreamDeliveredBytes => _upstream.DeliveredBytes;

    /// <summary>Ends held faults: stalls waiting for release resume; black holes are removed, which closes
    /// the connection (as removing a Toxiproxy timeout toxic does). Null means both directions.</summary>
    public void Release(FaultDirection? direction = null)
    {
        static bool Held(Fault f) => f is StallFault { DurationMs: null } or BlackHoleFault;
        if (direction is null or FaultDirection.Upstream)
            UpstreamFaults.RemoveAll(Held);
        if (direction is null or FaultDirection.Downstream)
            DownstreamFaults.RemoveAll(Held);
    }

    /// <summary>Resets the connection now, as a <see cref="ResetPeerFault"/> would.</summary>
    public void Reset(string reason = "reset by test") =>
        Terminate(new FaultTermination(true, FaultDirection.Upstream, reason));

    /// <summary>Closes the connection now, in an orderly way, as a <see cref="LimitDataFault"/> reached would: the
    /// broker keeps what got through, the writer's next write or flush fails (or reports completion, with
    /// <see cref="FaultyTransportOptions.OrderlyCloseAsCompletion"/>).</summary>
    public void Close(string reason = "closed by test") =>
        Terminate(new FaultTermination(false, FaultDirection.Upstream, reason));

    /// <summary>Closes whatever is still open (orderly) and waits for both pumps.</summary>
    public async ValueTask DisposeAsync()
    {
        Terminate(new FaultTermination(false, FaultDirection.Upstream, "transport disposed"));
        await Completion.ConfigureAwait(false);
        _stop.Dispose();
    }

    private void Terminate(FaultTermination termination)
    {
        if (Interlocked.CompareExchange(ref _termination, termination, null) is not null)
            return;
        try
        {
            _stop.Cancel();
        }
        catch (ObjectDisposedException) { } // the transport was disposed: its pumps have stopped already
    }

    private async Task RunAsync(FaultPump pump, ChunkPipe source, Pipe sink)
    {
        FaultPumpOutcome outcome = await Task.Run(() => pump.RunAsync(_stop.Token)).ConfigureAwait(false);
        switch (outcome)
        {
            case FaultPumpOutcome.SourceEnded:
                await source.Reader.CompleteAsync().ConfigureAwait(false);
                await sink.Writer.CompleteAsync().ConfigureAwait(false);
                break;
            case FaultPumpOutcome.SourceFailed:
                await source.Reader.CompleteAsync().ConfigureAwait(false);
                await sink.Writer.CompleteAsync(pump.SourceError).ConfigureAwait(false);
                break;
            case FaultPumpOutcome.SinkEnded:
                await source
                    .Reader.CompleteAsync(
                        _orderlyCloseAsCompletion
                            ? null
                            : new TransportClosedException(
                                $"The receiving side of the {pump.Direction} stream stopped reading."
                            )
                    )
                    .ConfigureAwait(false);
                await sink.Writer.CompleteAsync().ConfigureAwait(false);
                break;
            default:
                FaultTermination t = Termination ?? new FaultTermination(false, pump.Direction, "terminated");
                await source
                    .Reader.CompleteAsync(!t.IsReset && _orderlyCloseAsCompletion ? null : t.ToException())
                    .ConfigureAwait(false);
                // The broker keeps what got through and sees the stream end (mid-frame, if so);
                // the client's reads fail on a reset, as recv() does after RST.
                bool failReads = t.IsReset && pump.Direction == FaultDirection.Downstream;
                await sink.Writer.CompleteAsync(failReads ? t.ToException() : null).ConfigureAwait(false);
                break;
        }
    }
}
