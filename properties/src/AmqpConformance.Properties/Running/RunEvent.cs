namespace AmqpConformance.Properties.Running;

/// <summary>The interesting situations a run can put a writer in, counted per run so that a report shows what a verdict
/// of "holds" actually covered (see <see cref="RunEvents"/>). Each is observed by the harness, not assumed from the
/// scenario.</summary>
public enum RunEvent
{
    /// <summary>A cancellation fired while its call was pending with none of its bytes committed (waiting for the gate
    /// or for queue space).</summary>
    CancelWhileParked,

    /// <summary>A cancellation fired while a flush was pending on the output (held by the harness or waiting for the
    /// transport).</summary>
    CancelDuringFlush,

    /// <summary>A cancellation fired on another thread at the moment the held flushes were released, or right after its
    /// call started: racing completion.</summary>
    CancelRacingCompletion,

    /// <summary>DisposeAsync began while at least one call was pending.</summary>
    DisposeWithParkedCalls,

    /// <summary>DisposeAsync began while a flush was pending.</summary>
    DisposeDuringFlush,

    /// <summary>The transport was cut (reset or closed) inside a body frame of the writer's output.</summary>
    FaultMidBody,

    /// <summary>A call found the writer full: it stayed pending with none of its bytes committed while the output was
    /// stalled.</summary>
    QueueFull,

    /// <summary>A flush stayed pending (held by the harness or blocked by the transport) while calls were in
    /// flight.</summary>
    StallDuringFlush,

    /// <summary>A call started after the writer had seen a transport fault.</summary>
    CallAfterFault,

    /// <summary>A call started after DisposeAsync had begun.</summary>
    CallAfterDispose,

    /// <summary>DisposeAsync was called a second time: after the first call returned, or alongside it.</summary>
    DisposeTwice,

    /// <summary>A publish with a body started on a channel numbered 256 or above (its channel field's high byte is not
    /// zero).</summary>
    BodyOnChannelAbove255,

    /// <summary>A call handed the writer a command without content (a single method frame, as acks, cancels and closes
    /// are).</summary>
    CommandWithoutContent,

    /// <summary>A call's token was cancelled after the call had completed (a request that ended), with the writer still
    /// running.</summary>
    CancelAfterCompletion,

    /// <summary>A pipelining publisher had more than 32 of its calls pending at once (made, not yet awaited, not yet
    /// completed as far as the harness knows): more than a 32-command batch queued in the writer.</summary>
    ManyCallsPending,

    /// <summary>The stalled output completed the flushes it held and stalled again at once (a pulse), and once the
    /// writer settled a call was still pending or a new flush was held: what a call completed then may rest on the
    /// flush the output holds next.</summary>
    PulseWithCallsPending,

    /// <summary>A call passed no cancellation token (<see cref="CancellationToken.None"/>), as most publishes in client
    /// code do.</summary>
    CallWithoutToken,

    /// <summary>DisposeAsync began on another thread at the same moment as a call started (a publish racing connection
    /// close).</summary>
    DisposeRacingCall,

    /// <summary>One writer took more than 256 calls in one case: what it counts, rotates or trims every so many
    /// commands comes round.</summary>
    LongLivedWriter,

    /// <summary>The connection sat idle for two minutes of the case's time, the writer's timers firing as they fell
    /// due.</summary>
    IdleConnection,

    /// <summary>The output stayed stalled, a flush pending, for <see cref="Scenarios.ScriptAction.StallSpan"/> of the
    /// case's time, the writer's timers firing as they fell due
    /// (<see cref="Scenarios.ScriptActionKind.Stall"/>).</summary>
    LongStall,

    /// <summary>A call was made from the previous call's completion, on the thread that completed it, as an
    /// <c>await</c> in a loop continues (<see cref="Scenarios.Scenario.ContinuingPublisher"/>): the writer's completion
    /// of one call runs its caller's next.</summary>
    CallFromCompletion,

    /// <summary>A call handed the writer a heartbeat frame (type 8, channel 0), as a client's heartbeat timer
    /// does.</summary>
    HeartbeatCall,

    /// <summary>Writers from one factory ran at once on two or three connections
    /// (<see cref="Scenarios.Scenario.Connections"/>), and every connection reached at least one step of the case at
    /// the same moment as the others.</summary>
    ConnectionsAtOnce,
}
