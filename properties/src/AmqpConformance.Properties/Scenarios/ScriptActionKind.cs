namespace AmqpConformance.Properties.Scenarios;

/// <summary>What the harness does at one step of a scripted scenario (see <see cref="ScriptAction"/>).</summary>
public enum ScriptActionKind
{
    /// <summary>The publisher starts its next publish (without waiting for it to complete); nothing if its previous
    /// call is still pending or it has no publish left.</summary>
    Call,

    /// <summary>The output stops completing flushes: every flush from now on waits until <see cref="Release"/> (a
    /// stalled socket).</summary>
    Hold,

    /// <summary>The output completes the flushes it held and stops holding.</summary>
    Release,

    /// <summary>The publisher's pending call has its cancellation token cancelled.</summary>
    Cancel,

    /// <summary>The output completes the flushes it held but goes on holding: the writer's next flush waits again (a
    /// socket that drained one burst and stalled). A writer that counts on the flush after a successful one going
    /// through, completing calls whose bytes only that next flush carries, shows here.</summary>
    Pulse,

    /// <summary>The output releases its held flushes while, on another thread at the same moment, the publisher's
    /// pending call (or, when it has none, the call parked longest) is cancelled: cancellation racing
    /// completion.</summary>
    ReleaseRacingCancel,

    /// <summary>The output releases its held flushes while, on another thread at the same moment, the publisher starts
    /// its next publish: a new call racing the writer's wake-up (a fast path overtaking what is queued shows
    /// here).</summary>
    ReleaseRacingCall,

    /// <summary>The transport is reset (the writer's next flush fails); later calls are calls after a fault.</summary>
    Reset,

    /// <summary>The transport is closed in an orderly way (as limit_data does); later calls are calls after a
    /// fault.</summary>
    Close,

    /// <summary>The harness starts disposing the writer (and does not wait); later calls are calls after
    /// disposal.</summary>
    Dispose,

    /// <summary>The harness starts disposing the writer on another thread at the same moment as the publisher starts
    /// its next publish (a publish racing connection close): the call may be anywhere between its entry and its first
    /// byte when disposal begins, where neither parked calls nor calls after disposal reach. Disposal begins even if
    /// the call is skipped.</summary>
    DisposeRacingCall,

    /// <summary>The connection sits idle for <see cref="ScriptAction.IdleSpan"/> of the case's time: with no call
    /// pending and the output not held, the harness moves the case's clock over the writer's timers
    /// (<see cref="Harness.Writers.WriterContext.TimeProvider"/>), firing each as it falls due and letting the writer
    /// settle after it. Nothing if a call is pending or flushes are held.</summary>
    Idle,

    /// <summary>The stalled output stays stalled for <see cref="ScriptAction.StallSpan"/> of the case's time: with
    /// flushes held and one of them pending, the harness moves the case's clock over the writer's timers as for
    /// <see cref="Idle"/>, firing each as it falls due and letting the writer settle after it, while the call whose
    /// flush is held is still in flight (a peer that stopped reading for seconds). Nothing if the output is not holding
    /// or no flush is pending.</summary>
    Stall,
}
