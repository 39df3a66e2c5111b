namespace AmqpConformance.Toxiproxy;

/// <summary>Whether a connection's receive loop may read its socket: while held, the proxy posts no receive, so what
/// the peer sends stays in the kernel's buffers and, once they are full, blocks the peer's write (real TCP
/// backpressure, not bytes buffered in the proxy). Thread-safe.</summary>
internal sealed class ReceiveHold
{
    private readonly object _gate = new();
    private TaskCompletionSource? _released;

    /// <summary>Whether receives are held now.</summary>
    public bool IsHeld
    {
        get
        {
            lock (_gate)
                return _released is not null;
        }
    }

    /// <summary>Holds (<paramref name="held"/> true) or releases the receives; setting the state it has does
    /// nothing.</summary>
    public void Set(bool held)
    {
        TaskCompletionSource? release = null;
        lock (_gate)
        {
            if (held && _released is null)
                _released = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            else if (!held)
                (release, _released) = (_released, null);
        }
        release?.TrySetResult();
    }

    /// <summary>Completes at once when not held, else when released or <paramref name="cancellationToken"/> is
    /// cancelled (then it throws <see cref="OperationCanceledException"/>).</summary>
    public Task WaitReleasedAsync(CancellationToken cancellationToken)
    {
        Task? released;
        lock (_gate)
            released = _released?.Task;
        return released is null ? Task.CompletedTask : released.WaitAsync(cancellationToken);
    }
}
