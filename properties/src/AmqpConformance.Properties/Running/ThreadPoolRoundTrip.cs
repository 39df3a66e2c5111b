using System.Runtime.CompilerServices;

namespace AmqpConformance.Properties.Running;

/// <summary>One trip through the thread pool, as <see cref="CaseObserver.SettleAsync"/> takes it between looks at the
/// writer: the awaiting code goes to the back of the pool's global queue, and when a worker picks it up, onto that
/// worker's local queue once more, so that it resumes only after the work queued before it was picked up, and after
/// whatever that worker queued locally meanwhile. The same two hops as completing a <see cref="TaskCompletionSource"/>
/// from a work item, without allocating: a settle takes hundreds of trips per case.</summary>
/// <remarks>One trip at a time: await it, and await it again only after the previous await returned. Not thread-safe
/// otherwise.</remarks>
internal sealed class ThreadPoolRoundTrip : IThreadPoolWorkItem, ICriticalNotifyCompletion
{
    private Action? _continuation;
    private bool _local;

    /// <summary>Awaits one trip.</summary>
    public ThreadPoolRoundTrip GetAwaiter() => this;

    /// <summary>Never: every await takes the trip.</summary>
    public bool IsCompleted => false;

    /// <summary>Nothing to return.</summary>
    public void GetResult() { }

    /// <inheritdoc />
    public void OnCompleted(Action continuation) => UnsafeOnCompleted(continuation);

    /// <inheritdoc />
    public void UnsafeOnCompleted(Action continuation)
    {
        _continuation = continuation;
        _local = false;
        ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
    }

    /// <inheritdoc />
    void IThreadPoolWorkItem.Execute()
    {
        if (!_local)
        {
            _local = true;
            ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: true);
            return;
        }
        var next = _continuation!;
        _continuation = null;
        next();
    }
}
