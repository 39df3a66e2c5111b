using AmqpConformance.Harness.Faults;

namespace AmqpConformance.Toxiproxy;

/// <summary>
/// A <see cref="FaultPlan"/> put in force on a <see cref="FaultProxy"/> by <see cref="FaultProxy.ApplyPlan"/>: the
/// connections accepted while it was in force, each of which runs the plan as it is from its first byte (its faults, in
/// plan order, and its seed, through the same <see cref="FaultPump"/> as the in-process <see cref="FaultyTransport"/>),
/// and what their pumps injected. Thread-safe.
/// </summary>
/// <remarks>It stops taking connections when the proxy's plan is cleared or replaced; the connections it took keep
/// running it until they end, and their transcripts stay readable here afterwards.</remarks>
public sealed class AppliedFaultPlan
{
    private readonly object _gate = new();
    private readonly List<(FaultProxyConnection Connection, TaskCompletionSource Ended)> _connections = [];

    internal AppliedFaultPlan(FaultPlan plan) => Plan = plan;

    /// <summary>The plan, as given.</summary>
    public FaultPlan Plan { get; }

    /// <summary>How many connections were accepted under the plan so far.</summary>
    public int ConnectionCount
    {
        get
        {
            lock (_gate)
                return _connections.Count;
        }
    }

    /// <summary>The fault transcripts of the connections accepted under the plan, in the order they were accepted: what
    /// each direction's pump did (every chunk delivered, stall started and ended, bytes dropped, reset, close), live
    /// while the connection runs and complete once it ended (<see cref="WhenConnectionsEnded"/>). The same objects the
    /// connections write to, not copies.</summary>
    public IReadOnlyList<FaultTranscript> Transcripts()
    {
        lock (_gate)
            return [.. _connections.Select(c => c.Connection.Transcript)];
    }

    /// <summary>Completes when every connection accepted under the plan so far has ended (at once when there is
    /// none); never faults.</summary>
    public Task WhenConnectionsEnded()
    {
        lock (_gate)
            return Task.WhenAll(_connections.Select(c => c.Ended.Task));
    }

    /// <summary>Ends the plan's held faults on its connections, as <see cref="FaultyTransport.Release"/> does in
    /// process: a stall without a duration resumes, a black hole is removed (which closes its connection, the bytes it
    /// swallowed being lost). Null means both directions. Connections accepted later still get the whole
    /// plan.</summary>
    public void Release(FaultDirection? direction = null)
    {
        FaultProxyConnection[] connections;
        lock (_gate)
            connections = [.. _connections.Select(c => c.Connection)];
        foreach (FaultProxyConnection c in connections)
            c.ReleasePlanFaults(direction);
    }

    /// <summary>Takes a connection the proxy accepted under the plan (before it forwards a byte).</summary>
    internal void Accepted(FaultProxyConnection connection)
    {
        lock (_gate)
            _connections.Add(
                (connection, new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously))
            );
    }

    /// <summary>Notes that a connection taken by <see cref="Accepted"/> has ended.</summary>
    internal void Ended(FaultProxyConnection connection)
    {
        lock (_gate)
            foreach (var c in _connections)
                if (ReferenceEquals(c.Connection, connection))
                    c.Ended.TrySetResult();
    }

    /// <inheritdoc />
    public override string ToString() => $"{Plan.ToJson()} ({ConnectionCount} connection(s))";
}
