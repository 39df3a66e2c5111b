namespace AmqpConformance.Harness.Verdicts;

/// <summary>One call as its caller made it: the call timeline's unit, matched to wire frames through
/// <see cref="RoutingKey"/>. Most calls are publishes; a call without content (<see cref="HasContent"/> false) is a
/// basic.cancel naming the call in its consumer tag.</summary>
/// <remarks>Timestamps are on the <see cref="Protocol.Recording.FrameLog"/>'s clock, so they compare with
/// <see cref="Protocol.Recording.FrameRecord.Timestamp"/>.</remarks>
public sealed record CallRecord
{
    /// <summary>Unique id of the call within one run, from 0.</summary>
    public required int Id { get; init; }

    /// <summary>Which publisher (concurrent caller) made the call.</summary>
    public required int Publisher { get; init; }

    /// <summary>Position of the call among its publisher's calls, from 0: the order in which the publisher made them. A
    /// publisher's calls do not overlap, except a pipelining publisher's, which makes each call once the previous
    /// WriteAsync has returned and awaits them later.</summary>
    public required int IndexInPublisher { get; init; }

    /// <summary>Whether the publisher made this call before it had awaited its previous one (a pipelining publisher):
    /// the two calls overlap, so their commands may go out in either order.</summary>
    public bool Pipelined { get; init; }

    /// <summary>The channel the command went on.</summary>
    public required ushort Channel { get; init; }

    /// <summary>The routing key that identifies this call's basic.publish on the wire (see
    /// <see cref="CallCorrelation"/>).</summary>
    public string RoutingKey => CallCorrelation.RoutingKeyFor(Id);

    /// <summary>Whether the call's command carries content (a basic.publish, the default); false for a command that is
    /// a single method frame (a basic.cancel, nowait, whose consumer tag is <see cref="RoutingKey"/>;
    /// <see cref="ExpectedBody"/> is empty).</summary>
    public bool HasContent { get; init; } = true;

    /// <summary>Whether the call's command is a heartbeat frame (type 8, channel 0, an empty payload, frame end 0xCE), as
    /// a client's heartbeat timer sends (<see cref="HasContent"/> false). A heartbeat carries nothing that names its
    /// call, so the checkers match heartbeat calls to the heartbeat frames on the wire by count and order, not by
    /// <see cref="RoutingKey"/> (<see cref="OrderChecker"/>).</summary>
    public bool Heartbeat { get; init; }

    /// <summary>A copy of the caller's body bytes as they were when the call started.</summary>
    public required ReadOnlyMemory<byte> ExpectedBody { get; init; }

    /// <summary>When the call started.</summary>
    public required TimeSpan Started { get; init; }

    /// <summary>For a call that started after the writer saw the transport fault
    /// (<see cref="TransportFaultRecord.ObservedAt"/>): the real time between the two in which the process could run
    /// (wall time less what a scheduling-lag meter saw the process kept from running), so a writer whose threads act on
    /// the fault in real time is judged on time they had. Null where the harness does not measure it (the case's clock
    /// alone then judges), and for calls that started before the fault was seen.</summary>
    public TimeSpan? RunnableAfterFaultSeen { get; init; }

    /// <summary>When the call completed; null if it never did.</summary>
    public TimeSpan? Ended { get; init; }

    /// <summary>How the call ended.</summary>
    public CallOutcome Outcome { get; init; }

    /// <summary>"TypeName: message" of the exception a failed or cancelled call threw.</summary>
    public string? Error { get; init; }

    /// <summary>The exception a failed or cancelled call threw (null otherwise, and for calls the harness gave up on):
    /// its type and stack trace say where the writer or client threw it, which a known deviation of a client can be
    /// scoped by (a cancellation seen in a confirm wait, not in a flush).</summary>
    public Exception? Exception { get; init; }

    /// <summary>The client's publish sequence number when publisher confirms are on (the delivery tag the broker will
    /// use); null otherwise.</summary>
    public ulong? PublishSequenceNumber { get; init; }

    /// <summary>Whether the caller cancelled the call's token while the call was pending (or before it began): false
    /// means a cancellation the call reports did not come from its caller. Null where the harness does not follow it
    /// (client level).</summary>
    public bool? CancelRequested { get; init; }

    /// <summary>Whether WriteAsync kept its caller's thread (did not return a task) for the whole call timeout, so the
    /// harness cancelled the call's token to get the thread back (<see cref="CancelRequested"/> is then true: the
    /// cancellation was the harness's). A writer must not block the calling thread.</summary>
    public bool BlockedCaller { get; init; }

    /// <summary>Whether the harness overwrote the caller's body memory with <see cref="PoisonByte"/> right after the
    /// call completed.</summary>
    public bool PoisonedAfterCompletion { get; init; }

    /// <summary>The byte the harness poisons completed bodies with.</summary>
    public const byte PoisonByte = 0xDB;

    /// <summary>Whether the call handed the writer a body owner to dispose.</summary>
    public bool HasBodyOwner { get; init; }

    /// <summary>How many times the writer disposed the body owner (should be exactly 1 once the writer is
    /// disposed).</summary>
    public int BodyOwnerDisposals { get; init; }

    /// <summary>Bytes the writer had put into its output when it first disposed the body owner; null if never
    /// disposed.</summary>
    public long? BodyOwnerDisposedAtOutputBytes { get; init; }

    /// <summary>The offset in the writer's output just after this call's command's last frame: where its whole command
    /// ends in the bytes the writer committed. Null when its command was never committed whole, or where the harness
    /// does not follow the writer's output (client level; see
    /// <see cref="ConformanceEvidence.OutputDeliveryTracked"/>).</summary>
    public long? OutputEndByte { get; init; }

    /// <summary>How many bytes of the writer's output had been delivered, when the harness saw this call complete, by
    /// flushes that returned successfully (without throwing, with neither IsCompleted nor IsCanceled): the committed
    /// bytes the last such flush handed on. The call's command was delivered before it completed when
    /// <see cref="OutputEndByte"/> is at most this. Null if the call never completed, or where the harness does not
    /// follow the writer's output.</summary>
    public long? DeliveredOutputBytesAtCompletion { get; init; }
}
