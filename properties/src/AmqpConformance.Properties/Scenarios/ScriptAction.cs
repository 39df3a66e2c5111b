namespace AmqpConformance.Properties.Scenarios;

/// <summary>One step of a scripted scenario. The harness runs the steps in order on one driver and lets the writer
/// settle (no more activity on its output, its calls or its pool) after each, so each step meets the writer in a
/// definite state: this is what makes a timing-dependent failure replay.</summary>
/// <param name="Kind">What to do.</param>
/// <param name="Publisher">The publisher it concerns (<see cref="ScriptActionKind.Call"/>,
/// <see cref="ScriptActionKind.Cancel"/>, <see cref="ScriptActionKind.ReleaseRacingCancel"/>,
/// <see cref="ScriptActionKind.ReleaseRacingCall"/>, <see cref="ScriptActionKind.DisposeRacingCall"/>); -1
/// otherwise.</param>
/// <param name="Spins">For <see cref="ScriptActionKind.DisposeRacingCall"/>: how long the disposing thread spins
/// (<see cref="Thread.SpinWait(int)"/> iterations) after the two threads are let go, so that across cases disposal
/// meets the call at different points between its entry and its first byte; 0 otherwise.</param>
public sealed record ScriptAction(ScriptActionKind Kind, int Publisher = -1, int Spins = 0)
{
    /// <summary>Whether the step makes a call: <see cref="ScriptActionKind.Call"/>,
    /// <see cref="ScriptActionKind.ReleaseRacingCall"/> or <see cref="ScriptActionKind.DisposeRacingCall"/>.</summary>
    public bool MakesCall =>
        Kind is ScriptActionKind.Call or ScriptActionKind.ReleaseRacingCall or ScriptActionKind.DisposeRacingCall;

    /// <summary>Publisher <paramref name="publisher"/> starts its next publish.</summary>
    public static ScriptAction Call(int publisher) => new(ScriptActionKind.Call, publisher);

    /// <summary>Publisher <paramref name="publisher"/>'s pending call is cancelled.</summary>
    public static ScriptAction Cancel(int publisher) => new(ScriptActionKind.Cancel, publisher);

    /// <summary>Held flushes complete while publisher <paramref name="publisher"/>'s pending call is
    /// cancelled.</summary>
    public static ScriptAction ReleaseRacingCancel(int publisher) =>
        new(ScriptActionKind.ReleaseRacingCancel, publisher);

    /// <summary>Held flushes complete while publisher <paramref name="publisher"/> starts its next publish.</summary>
    public static ScriptAction ReleaseRacingCall(int publisher) => new(ScriptActionKind.ReleaseRacingCall, publisher);

    /// <summary>Disposal starts, after <paramref name="spins"/> spin iterations, while publisher
    /// <paramref name="publisher"/> starts its next publish.</summary>
    public static ScriptAction DisposeRacingCall(int publisher, int spins = 0) =>
        new(ScriptActionKind.DisposeRacingCall, publisher, spins);

    /// <summary>The output holds flushes.</summary>
    public static ScriptAction Hold { get; } = new(ScriptActionKind.Hold);

    /// <summary>The output completes held flushes.</summary>
    public static ScriptAction Release { get; } = new(ScriptActionKind.Release);

    /// <summary>The output completes held flushes and goes on holding.</summary>
    public static ScriptAction Pulse { get; } = new(ScriptActionKind.Pulse);

    /// <summary>The transport is reset.</summary>
    public static ScriptAction Reset { get; } = new(ScriptActionKind.Reset);

    /// <summary>The transport is closed.</summary>
    public static ScriptAction Close { get; } = new(ScriptActionKind.Close);

    /// <summary>Disposal starts.</summary>
    public static ScriptAction Dispose { get; } = new(ScriptActionKind.Dispose);

    /// <summary>The connection sits idle.</summary>
    public static ScriptAction Idle { get; } = new(ScriptActionKind.Idle);

    /// <summary>The stalled output stays stalled a while.</summary>
    public static ScriptAction Stall { get; } = new(ScriptActionKind.Stall);

    /// <summary>How much of the case's time a <see cref="ScriptActionKind.Stall"/> step lets pass: 20 s, long enough
    /// for a writer's timers of seconds (trimming an idle buffer, a keep-alive) to fire with a call in flight, and
    /// shorter than a client's usual write timeout (RabbitMQ.Client's is 30 s), after which a writer may rightly give
    /// up on the stalled flush.</summary>
    public static TimeSpan StallSpan { get; } = TimeSpan.FromSeconds(20);

    /// <summary>How much of the case's time an <see cref="ScriptActionKind.Idle"/> step lets pass: two minutes, past a
    /// client's usual write timeout (RabbitMQ.Client's is 30 s) and a heartbeat interval (60 s).</summary>
    public static TimeSpan IdleSpan { get; } = TimeSpan.FromMinutes(2);

    /// <summary>Compact: "call:p0", "hold", "release", "pulse", "cancel:p1", "race:p2", "race-call:p0", "reset",
    /// "close", "dispose", "dispose-race-call:p1" (or "dispose-race-call:p1+400" with 400 spins), "idle",
    /// "stall".</summary>
    public override string ToString() =>
        Kind switch
        {
            ScriptActionKind.Call => $"call:p{Publisher}",
            ScriptActionKind.Cancel => $"cancel:p{Publisher}",
            ScriptActionKind.ReleaseRacingCancel => $"race:p{Publisher}",
            ScriptActionKind.ReleaseRacingCall => $"race-call:p{Publisher}",
            ScriptActionKind.DisposeRacingCall => Spins == 0
                ? $"dispose-race-call:p{Publisher}"
                : $"dispose-race-call:p{Publisher}+{Spins}",
            _ => Kind.ToString().ToLowerInvariant(),
        };
}
