using System.IO.Pipelines;
using System.Net.Sockets;
using AmqpConformance.Harness.Faults;

namespace AmqpConformance.Toxiproxy;

/// <summary>
/// One client connection through a <see cref="FaultProxy"/>: the client socket, the upstream socket, and a
/// <see cref="FaultPump"/> per direction applying the fault plan it was accepted under (as it is, from its first byte)
/// and the toxics that (by their toxicity) apply to it.
/// </summary>
/// <remarks>Each socket receive becomes one chunk; while the proxy stalls a direction in process
/// (<see cref="FaultProxy.Stall"/>), its source socket is not read at all (<see cref="HoldReceives"/>). A reset
/// closes both sockets with linger 0 (RST); an orderly close (limit_data, timeout) shuts both down after what was
/// delivered. A peer's FIN is passed on as a half-close after any slow_close delay; the connection ends when both
/// directions did.</remarks>
internal sealed class FaultProxyConnection
{
    private const int ReceiveSize = 16 * 1024;
    private static readonly PipeOptions SourceOptions = new(
        pauseWriterThreshold: 256 * 1024,
        resumeWriterThreshold: 128 * 1024,
        useSynchronizationContext: false
    );

    private readonly Socket _client;
    private readonly Socket _server;
    private readonly ChunkPipe _up;
    private readonly ChunkPipe _down;
    private readonly CancellationTokenSource _stop = new();
    private readonly object _gate = new();
    private readonly Dictionary<string, (ToxicConfig Config, Fault? Fault)> _applied = [];
    private readonly List<Fault> _planFaults;
    private List<Fault> _toxicFaults = [];
    private readonly ReceiveHold _clientHold = new();
    private readonly ReceiveHold _serverHold = new();
    private FaultTermination? _termination;
    private Task? _completion;
    private long _receivedFromClient;

    /// <summary>Sets the connection up; nothing is read or forwarded until <see cref="Start"/>.</summary>
    /// <param name="id">The proxy's number for it.</param>
    /// <param name="client">The accepted client socket (owned from now on).</param>
    /// <param name="server">The connected upstream socket (owned from now on).</param>
    /// <param name="seed">Seeds the pumps' random draws (jitter, slice sizes): the plan's seed under a plan.</param>
    /// <param name="planFaults">The faults of the plan it runs (in force from its first byte, ahead of the toxics);
    /// empty without a plan.</param>
    /// <param name="time">The clock of its toxics' delays and of its chunks' arrival times.</param>
    public FaultProxyConnection(
        long id,
        Socket client,
        Socket server,
        int seed,
        IReadOnlyList<Fault> planFaults,
        TimeProvider time
    )
    {
        Id = id;
        _client = client;
        _server = server;
        _planFaults = [.. planFaults];
        PublishLocked();
        _up = new ChunkPipe(SourceOptions, time);
        _down = new ChunkPipe(SourceOptions, time);
        Upstream = new FaultPump(
            FaultDirection.Upstream,
            _up,
            PipeWriter.Create(new NetworkStream(server, ownsSocket: false)),
            UpstreamFaults,
            seed,
            new FaultClock(FaultTimeMode.Real, time),
            Transcript,
            Terminate
        );
        Downstream = new FaultPump(
            FaultDirection.Downstream,
            _down,
            PipeWriter.Create(new NetworkStream(client, ownsSocket: false)),
            DownstreamFaults,
            seed,
            new FaultClock(FaultTimeMode.Real, time),
            Transcript,
            Terminate
        );
    }

    public long Id { get; }
    public FaultPump Upstream { get; }
    public FaultPump Downstream { get; }
    public LiveFaultList UpstreamFaults { get; } = new();
    public LiveFaultList DownstreamFaults { get; } = new();
    public FaultTranscript Transcript { get; } = new();

    /// <summary>Bytes read from the client's socket so far.</summary>
    public long ReceivedFromClient => Interlocked.Read(ref _receivedFromClient);

    /// <summary>Stops (<paramref name="held"/> true) or resumes reading the socket that feeds
    /// <paramref name="direction"/> (the client's for upstream): while held, what that peer sends stays in the kernel,
    /// whose full buffers block the peer's writes. A receive already posted still completes.</summary>
    public void HoldReceives(FaultDirection direction, bool held) =>
        (direction == FaultDirection.Upstream ? _clientHold : _serverHold).Set(held);

    /// <summary>How the connection was ended (a reset or an orderly close), or null while nothing ended it but its
    /// peers.</summary>
    public FaultTermination? Termination => Volatile.Read(ref _termination);

    /// <summary>Completes when both directions ended and both sockets are closed. Set by <see cref="Start"/>.</summary>
    public Task Completion => _completion ?? throw new InvalidOperationException("The connection was not started.");

    /// <summary>Starts reading both sockets and forwarding through the faults in force. The host applies the proxy's
    /// toxics (<see cref="ApplyToxics"/>) first, so even the connection's first byte goes through them; changes after
    /// that reach the running pumps before their next chunk. <paramref name="forwardingStarting"/> (a test hook) runs
    /// first, on the calling thread.</summary>
    public void Start(Action<FaultProxyConnection>? forwardingStarting = null)
    {
        if (_completion is not null)
            throw new InvalidOperationException("The connection was already started.");
        forwardingStarting?.Invoke(this);
        _completion = RunAsync(_up, _down);
    }

    /// <summary>Brings the connection's faults in line with the proxy's toxics. A toxic whose config did not
    /// change keeps its fault object (and so its state, such as bytes counted toward a limit); a new or
    /// changed one is rolled against its toxicity afresh.</summary>
    public void ApplyToxics(IReadOnlyList<(ToxicConfig Config, Fault? Fault)> toxics)
    {
        lock (_gate)
        {
            var next = new Dictionary<string, (ToxicConfig, Fault?)>();
            foreach (var (config, fault) in toxics)
            {
                if (_applied.TryGetValue(config.Name, out var had) && had.Config.Equals(config))
                    next[config.Name] = had;
                else
                    next[config.Name] = (
                        config,
                        fault is not null && Random.Shared.NextSingle() < config.Toxicity ? fault with { } : null
                    );
            }
            _applied.Clear();
            foreach (var kv in next)
                _applied[kv.Key] = kv.Value;
            _toxicFaults = [.. toxics.Select(t => _applied[t.Config.Name].Fault).OfType<Fault>()];
            PublishLocked();
        }
    }

    /// <summary>Ends the plan's held faults (a stall without a duration, a black hole) in
    /// <paramref name="direction"/> (null: both), as <see cref="FaultyTransport.Release"/> does.</summary>
    public void ReleasePlanFaults(FaultDirection? direction)
    {
        lock (_gate)
        {
            if (
                _planFaults.RemoveAll(f =>
                    f is StallFault { DurationMs: null } or BlackHoleFault
                    && (direction is null || f.Direction == direction)
                ) > 0
            )
                PublishLocked();
        }
    }

    /// <summary>Puts the plan's faults, then the toxics', in force on the pumps. The same fault objects stay in force
    /// across changes, so a plan fault keeps its state (a stall that fired, bytes counted toward a reset).</summary>
    private void PublishLocked()
    {
        Fault[] all = [.. _planFaults, .. _toxicFaults];
        UpstreamFaults.Set(all.Where(f => f.Direction == FaultDirection.Upstream));
        DownstreamFaults.Set(all.Where(f => f.Direction == FaultDirection.Downstream));
    }

    /// <summary>Ends the connection: a reset (RST) or an orderly close.</summary>
    public void Terminate(FaultTermination termination)
    {
        if (Interlocked.CompareExchange(ref _termination, termination, null) is not null)
            return;
        if (termination.IsReset)
        {
            Abort(_client);
            Abort(_server);
        }
        try
        {
            _stop.Cancel();
        }
        catch (ObjectDisposedException) { } // the connection was disposed: its pumps have stopped already
    }

    private async Task RunAsync(ChunkPipe up, ChunkPipe down)
    {
        Task receiveUp = ReceiveAsync(_client, up.Writer, _clientHold);
        Task receiveDown = ReceiveAsync(_server, down.Writer, _serverHold);
        Task<FaultPumpOutcome> upstream = Task.Run(() => Upstream.RunAsync(_stop.Token));
        Task<FaultPumpOutcome> downstream = Task.Run(() => Downstream.RunAsync(_stop.Token));
        Task<FaultPumpOutcome> first = await Task.WhenAny(upstream, downstream).ConfigureAwait(false);
        AfterPump(first == upstream ? Upstream : Downstream, await first.ConfigureAwait(false));
        Task<FaultPumpOutcome> second = first == upstream ? downstream : upstream;
        AfterPump(second == upstream ? Upstream : Downstream, await second.ConfigureAwait(false));

        try
        {
            _stop.Cancel();
        }
        catch (ObjectDisposedException) { } // the connection was disposed: its pumps have stopped already
        if (_termination is { IsReset: false })
        {
            Shutdown(_client);
            Shutdown(_server);
        }
        await Task.WhenAll(receiveUp, receiveDown).ConfigureAwait(false);
        _client.Dispose();
        _server.Dispose();
        await up.Reader.CompleteAsync().ConfigureAwait(false);
        await down.Reader.CompleteAsync().ConfigureAwait(false);
        _stop.Dispose();
    }

    private void AfterPump(FaultPump pump, FaultPumpOutcome outcome)
    {
        Socket sink = pump.Direction == FaultDirection.Upstream ? _server : _client;
        switch (outcome)
        {
            case FaultPumpOutcome.SourceEnded:
                try
                {
                    sink.Shutdown(SocketShutdown.Send);
                }
                catch (Exception e) when (e is SocketException or ObjectDisposedException) { } // the sink is gone already: its peer sees the end either way
                break;
            case FaultPumpOutcome.SourceFailed:
            case FaultPumpOutcome.SinkEnded:
                Terminate(
                    new FaultTermination(
                        true,
                        pump.Direction,
                        $"peer failed ({outcome}): {(pump.SourceError ?? pump.SinkError)?.Message}"
                    )
                );
                break;
        }
    }

    private async Task ReceiveAsync(Socket socket, PipeWriter writer, ReceiveHold hold)
    {
        Exception? error = null;
        try
        {
            while (true)
            {
                await hold.WaitReleasedAsync(_stop.Token).ConfigureAwait(false);
                Memory<byte> memory = writer.GetMemory(ReceiveSize);
                int n = await socket.ReceiveAsync(memory, SocketFlags.None, _stop.Token).ConfigureAwait(false);
                if (n == 0)
                    break;
                if (socket == _client)
                    Interlocked.Add(ref _receivedFromClient, n);
                writer.Advance(n);
                FlushResult flushed = await writer.FlushAsync(_stop.Token).ConfigureAwait(false);
                if (flushed.IsCompleted)
                    break;
            }
        }
        catch (OperationCanceledException) { } // the proxy stopped the pump: how it ended is the outcome returned below
        catch (Exception e) when (e is SocketException or ObjectDisposedException or IOException)
        {
            error = new IOException($"Receive failed: {e.Message}", e);
        }
        await writer.CompleteAsync(error).ConfigureAwait(false);
    }

    private static void Abort(Socket socket)
    {
        try
        {
            socket.LingerState = new LingerOption(true, 0);
            socket.Close();
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException) { } // reset or closed already: the peer sees the end either way
    }

    private static void Shutdown(Socket socket)
    {
        try
        {
            socket.Shutdown(SocketShutdown.Both);
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException) { } // reset or closed already: the peer sees the end either way
    }
}
