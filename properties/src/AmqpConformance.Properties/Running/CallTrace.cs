using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Properties.Running;

/// <summary>The mutable record of one call while a run is in progress; frozen into a <see cref="CallRecord"/> at the
/// end.</summary>
/// <remarks>Written by the call's own task and read by the driver: <see cref="Done"/> completing publishes the final
/// state.</remarks>
internal sealed class CallTrace
{
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public required int Id { get; init; }
    public required int Publisher { get; init; }
    public required int IndexInPublisher { get; init; }
    public required ushort Channel { get; set; }
    public string RoutingKey => CallCorrelation.RoutingKeyFor(Id);
    public required byte[] ExpectedBody { get; init; }

    /// <summary>Whether the call is a publish (true) or a command without content.</summary>
    public bool HasContent { get; init; } = true;

    /// <summary>Whether the call's command is a heartbeat frame (see <see cref="CallRecord.Heartbeat"/>).</summary>
    public bool Heartbeat { get; init; }
    public TimeSpan Started { get; set; }

    /// <summary>When the call started in real time: a timestamp of <see cref="SchedulingLag.Process"/>'s
    /// clock.</summary>
    public long StartedTimestamp { get; set; }

    /// <summary>Whether the call was made at all (a publisher stops after a hung call; a script may not reach every
    /// publish).</summary>
    public bool Attempted { get; set; }
    public TimeSpan? Ended { get; set; }
    public CallOutcome Outcome { get; set; } = CallOutcome.Pending;
    public string? Error { get; set; }
    public Exception? Exception { get; private set; }
    public bool Poisoned { get; set; }
    public ulong? PublishSequenceNumber { get; set; }
    public TrackedBodyOwner? Owner { get; set; }

    /// <summary>The output's <see cref="ControlledOutput.DeliveredOffset"/> when the harness saw the call
    /// complete.</summary>
    public long? DeliveredAtCompletion { get; set; }

    /// <summary>Whether the harness cancelled the call's token while the call was pending (or before it began); null
    /// where the harness does not follow it (client level).</summary>
    public bool? CancelRequested { get; set; }

    /// <summary>The writer code a harness thread is inside for this call right now ("WriteAsync", "the cancellation of
    /// its token"), with when it went in on the case's clock; null when none. What a hung case reports.</summary>
    public HarnessInside? Inside
    {
        get => Volatile.Read(ref _inside);
        set => Volatile.Write(ref _inside, value);
    }
    private HarnessInside? _inside;

    /// <summary>Whether WriteAsync kept the calling thread for the whole call timeout (see
    /// <see cref="CallRecord.BlockedCaller"/>).</summary>
    public bool BlockedCaller { get; set; }

    /// <summary>Whether the publisher made this call before awaiting its previous one (see
    /// <see cref="CallRecord.Pipelined"/>).</summary>
    public bool Pipelined { get; set; }

    /// <summary>For a call started deferred (pipelined), what consumes its ValueTask and watches it; null once
    /// collected.</summary>
    public Func<Task>? Collect { get; set; }

    /// <summary>Cancels the call's token (set while the call is in flight).</summary>
    public Action? Cancel { get; set; }

    /// <summary>Completes once the call has completed and its bookkeeping is done, or it was given up as
    /// hung.</summary>
    public Task Done => _done.Task;

    /// <summary>Whether the call is in flight: started and not yet done.</summary>
    public bool IsPending => Attempted && !_done.Task.IsCompleted;

    /// <summary>Whether WriteAsync has returned to its caller (with a task, or by throwing): the writer finished the
    /// call's synchronous part, so while the call is pending it waits on something (a lock, queue space, a flush)
    /// rather than runs on the publisher's thread, which the scheduler may have taken off the CPU anywhere in that
    /// part.</summary>
    public bool HandedOver
    {
        get => Volatile.Read(ref _handedOver);
        set => Volatile.Write(ref _handedOver, value);
    }

    private bool _handedOver;

    /// <summary>Whether the call is pending and waiting (<see cref="IsPending"/> and
    /// <see cref="HandedOver"/>).</summary>
    public bool IsParked => IsPending && HandedOver;

    public void Complete(TimeSpan at, Exception? error)
    {
        Ended = at;
        Outcome = error switch
        {
            null => CallOutcome.Succeeded,
            OperationCanceledException => CallOutcome.Cancelled,
            _ => CallOutcome.Failed,
        };
        Error = error is null ? null : $"{error.GetType().Name}: {error.Message}";
        Exception = error;
    }

    /// <summary>Marks the bookkeeping done (or the call given up as hung).</summary>
    public void MarkDone() => _done.TrySetResult();

    /// <summary>The call as the checkers see it; <paramref name="outputEnd"/> is where its whole command ends in the
    /// writer's output (null if it never went in whole, or the output was not followed);
    /// <paramref name="runnableAfterFaultSeen"/> is the real time the writer had to act on a fault it saw before the
    /// call started (<see cref="CallRecord.RunnableAfterFaultSeen"/>).</summary>
    public CallRecord Freeze(long? outputEnd = null, TimeSpan? runnableAfterFaultSeen = null) =>
        new()
        {
            Id = Id,
            Publisher = Publisher,
            IndexInPublisher = IndexInPublisher,
            Channel = Channel,
            ExpectedBody = ExpectedBody,
            HasContent = HasContent,
            Heartbeat = Heartbeat,
            Started = Started,
            Ended = Ended,
            Outcome = Outcome,
            Error = Error,
            Exception = Exception,
            PoisonedAfterCompletion = Poisoned,
            PublishSequenceNumber = PublishSequenceNumber,
            CancelRequested = CancelRequested,
            Pipelined = Pipelined,
            BlockedCaller = BlockedCaller,
            HasBodyOwner = Owner is not null,
            BodyOwnerDisposals = Owner?.Disposals ?? 0,
            BodyOwnerDisposedAtOutputBytes = Owner?.DisposedAtOutputBytes,
            OutputEndByte = outputEnd,
            RunnableAfterFaultSeen = runnableAfterFaultSeen,
            DeliveredOutputBytesAtCompletion = Ended is null ? null : DeliveredAtCompletion,
        };
}
