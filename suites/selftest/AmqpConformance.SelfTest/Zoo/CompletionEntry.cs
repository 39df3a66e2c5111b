using System.Threading.Tasks.Sources;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo;

/// <summary>A pooled queue entry of <see cref="QueuedZooWriter"/>: a command and the source behind the
/// <see cref="ValueTask"/> its caller awaits, so that a busy writer allocates nothing per call. Reused only once its
/// caller has taken the result (<see cref="GetResult"/>), unless the writer says otherwise
/// (<see cref="QueuedZooWriter.RecycleWhenSignalled"/>).</summary>
public sealed class CompletionEntry : IValueTaskSource
{
    private readonly Action<CompletionEntry> _recycle;
    private readonly bool _recycleOnResult;

    // Continuations run on the signalling thread (the writer's loop), before the loop moves on: a caller that awaits at
    // once has taken its result before the loop can do anything else with the entry.
    private ManualResetValueTaskSourceCore<bool> _core = new() { RunContinuationsAsynchronously = false };

    // Who owns the command once the entry is in the queue: 0 queued, 1 taken by the writer's loop, 2 withdrawn by its
    // caller.
    private int _claim;

    /// <summary>A pooled entry, given back through <paramref name="recycle"/>; or, with a null
    /// <paramref name="recycle"/>, one used once.</summary>
    internal CompletionEntry(Action<CompletionEntry>? recycle, bool recycleOnResult)
    {
        _recycle = recycle ?? (static _ => { });
        _recycleOnResult = recycleOnResult && recycle is not null;
        Pooled = recycle is not null;
    }

    /// <summary>Whether the entry belongs to the pool (false for one made for a single call).</summary>
    internal bool Pooled { get; }

    /// <summary>The command the entry carries.</summary>
    public OutgoingCommand Command { get; private set; }

    /// <summary>What the caller awaits.</summary>
    public ValueTask Task => new(this, _core.Version);

    internal void Start(OutgoingCommand command)
    {
        _core.Reset();
        Command = command;
        Volatile.Write(ref _claim, 0);
    }

    /// <summary>The writer's loop claims the queued entry to write its command; false when its caller withdrew it
    /// first.</summary>
    internal bool TryTake() => Interlocked.CompareExchange(ref _claim, 1, 0) == 0;

    /// <summary>The caller, whose wait for room was cancelled, claims its command back; false when the loop took it
    /// first.</summary>
    /// <remarks>On .NET 10 a cancelled <c>ChannelWriter.WriteAsync</c> can both throw and hand its item to the reader
    /// (dotnet/runtime#132230): the claim, not the exception, says who releases the command.</remarks>
    internal bool TryWithdraw() => Interlocked.CompareExchange(ref _claim, 2, 0) == 0;

    internal void Succeed() => _core.SetResult(true);

    internal void Fail(Exception reason) => _core.SetException(reason);

    /// <inheritdoc />
    public void GetResult(short token)
    {
        try
        {
            _core.GetResult(token);
        }
        finally
        {
            if (_recycleOnResult)
                _recycle(this);
        }
    }

    /// <inheritdoc />
    public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

    /// <inheritdoc />
    public void OnCompleted(
        Action<object?> continuation,
        object? state,
        short token,
        ValueTaskSourceOnCompletedFlags flags
    ) => _core.OnCompleted(continuation, state, token, flags);
}
