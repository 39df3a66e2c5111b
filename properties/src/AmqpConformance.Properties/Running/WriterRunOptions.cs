using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Properties.Running;

/// <summary>Limits of one writer-level run. Every bound is generous, so a correct writer on a loaded machine is never
/// mistaken for a broken one; only a broken writer ever waits them out.</summary>
public sealed record WriterRunOptions
{
    /// <summary>How long one publish call may take before it counts as hung (default 5 s; shrinking a real hang is
    /// bounded by <see cref="PropertyRunOptions.ShrinkBudget"/>).</summary>
    public TimeSpan CallTimeout { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>How long one whole case may take, in time the process could run, once its writer is open (default 15 s,
    /// thousands of times what a case takes; time the machine kept the process off the CPU is added, and so is the real
    /// time disposal is given for a writer's own timers). Past it the harness stops waiting and reports the case as
    /// hung (rule <c>lifecycle/case-hung</c>), naming the writer code its own threads are stuck in: a writer can hold
    /// the harness's thread for ever (a cancellation callback that deadlocks the thread that cancels, a WriteAsync
    /// blocked on a lock its loop never releases), and every other bound is awaited on some thread that would then
    /// never come back. The stuck threads are left behind.</summary>
    public TimeSpan CaseTimeout { get; init; } = TimeSpan.FromSeconds(15);

    /// <summary>How long the writer's DisposeAsync may take beyond twice its drain timeout (default 3 s).</summary>
    public TimeSpan DisposeMargin { get; init; } = TimeSpan.FromSeconds(3);

    /// <summary>The drain timeout given to the writer when the harness keeps its output stalled through disposal
    /// (default 25 ms: the output never drains then, so giving up is the expected outcome and only its promptness is at
    /// stake). Shorter saves real time (7% of the default mix wait it out) but, on a loaded machine, gives up on
    /// writers still between a write and its flush; 10 ms did that under stress-ng.</summary>
    public TimeSpan StalledDrainTimeout { get; init; } = TimeSpan.FromMilliseconds(25);

    /// <summary>How long the writer may sit idle (not touching its output) while a completed call's bytes are still
    /// unflushed before the harness reports a visibility lapse (default 3 s); a writer that keeps working is given the
    /// time it needs.</summary>
    public TimeSpan VisibilityBound { get; init; } = TimeSpan.FromSeconds(3);

    /// <summary>How long the harness waits, after each scripted step, for the writer to stop moving: it settles as soon
    /// as nothing changed over a few rounds through the thread pool, and never waits longer than this (default 250
    /// ms).</summary>
    public TimeSpan SettleLimit { get; init; } = TimeSpan.FromMilliseconds(250);

    /// <summary>The least real time a settle takes, quiet or not (default zero: a settle ends as soon as the writer is
    /// quiet). On a loaded machine the thread holding a writer's next step can be off the CPU for a scheduler time
    /// slice while the settle's trips through the pool find nothing moving, and the script's next step then overtakes
    /// what the writer was about to do; a floor of a few time slices (20 ms, say) makes a scripted case play out as it
    /// would on an idle machine, at that cost per step. For fixed scripts that must catch a writer every time on a
    /// shared CI machine.</summary>
    public TimeSpan SettleFloor { get; init; } = TimeSpan.Zero;

    /// <summary>How long, in real time, a writer that let a call succeed after it saw a fault gets to act on the fault
    /// before the harness moves the case's clock past the faults invariant's grace period and makes the next call
    /// (default at most 200 ms: the wait ends once the machine has been seen scheduling promptly for
    /// <see cref="FaultGraceQuietWindow"/>; the writer has settled by then). The rest of the grace is skipped on the
    /// case's clock, not waited: a writer that accepts calls for ever after a fault is caught just the same, in a fifth
    /// of the time or less. A correct writer is blamed only if the thread handling its fault was kept off the CPU for
    /// this long, or through a quiet window, while the harness ran.</summary>
    public TimeSpan FaultGraceRealWait { get; init; } = TimeSpan.FromMilliseconds(200);

    /// <summary>How long the machine must be seen scheduling promptly for <see cref="FaultGraceRealWait"/> to end early
    /// (default 50 ms): the harness takes trips through the thread pool while it waits, and once every trip over this
    /// long came back within a millisecond, nothing kept the process's threads off the CPU for longer than a
    /// scheduler's period, so a writer thread with a fault to act on has had it. A loaded machine, the case that wait
    /// exists for, delays the trips too and gets the whole wait. Zero never ends it early.</summary>
    public TimeSpan FaultGraceQuietWindow { get; init; } = TimeSpan.FromMilliseconds(50);

    /// <summary>How long after a writer that may complete calls on accept (any
    /// <see cref="FrameWriterFactory.Completion"/> but <see cref="WriterCompletion.AfterFlush"/>) saw a fault the
    /// harness lets it react before the script's next call (default 1 ms of real time, spent taking trips through the
    /// thread pool, then a settle). A fault usually reaches such a writer on its own loop while the harness is already
    /// on its way to the next call; without this moment that call came tens of microseconds after the fault, before the
    /// writer had unwound the exception and marked itself faulted, so it succeeded, and the harness had to give the
    /// whole <see cref="FaultGraceRealWait"/> before the call after it (1 in 50 default cases for the reference
    /// background writer: half its running time). Only speed depends on it: a writer that needs longer gets the grace
    /// as before.</summary>
    public TimeSpan FaultReactionWait { get; init; } = TimeSpan.FromMilliseconds(1);

    /// <summary>The bound that replaces <see cref="CallTimeout"/>, <see cref="VisibilityBound"/> or
    /// <see cref="DisposeMargin"/> for a rule in <see cref="ProvenRules"/> (250 ms of time the process could
    /// run).</summary>
    public static readonly TimeSpan ProvenRuleBound = TimeSpan.FromMilliseconds(250);

    /// <summary>The real-time rules (<c>call-hung</c>, <c>blocked-caller</c>, <c>not-flushed</c>, <c>dispose-hung</c>,
    /// <c>case-hung</c>) that this writer has already been seen to break at their full bound in this process, and that
    /// this run judges at <see cref="ProvenRuleBound"/> (<see cref="ProvenCaseBound"/>) instead. Set for shrink
    /// candidates, whose smallest failure is then confirmed at full bounds before it is reported (or the first failing
    /// case, judged at full bounds, is reported instead), and for the properties after the one that shrank the writer's
    /// failure (<see cref="PropertyRunOptions.ShrinkOncePerWriter"/>), whose purpose is to end red and whose first
    /// failing case is reported unshrunk: a writer that left a call hung for 5 s, or completed calls unflushed for 3 s
    /// idle, does not need to show it at full length a dozen times more. Never set for a writer that has not broken the
    /// rule at its full bound, nor for a generated case of the first property, nor for a replay's first run.</summary>
    internal IReadOnlySet<string> ProvenRules { get; init; } = new HashSet<string>();

    /// <summary>The call timeout this run judges <c>call-hung</c> on: <see cref="CallTimeout"/>, or
    /// <see cref="ProvenRuleBound"/>.</summary>
    internal TimeSpan HungCallBound => ProvenRules.Contains("call-hung") ? ProvenRuleBound : CallTimeout;

    /// <summary>How long a caller's thread may stay inside WriteAsync before this run judges <c>blocked-caller</c> (and
    /// cancels the call's token to get the thread back): <see cref="CallTimeout"/>, or
    /// <see cref="ProvenRuleBound"/>.</summary>
    internal TimeSpan BlockedCallerBound => ProvenRules.Contains("blocked-caller") ? ProvenRuleBound : CallTimeout;

    /// <summary>The case bound for a writer proven to leave harness threads stuck in it (<c>case-hung</c>): 2 s of time
    /// the process could run instead of <see cref="CaseTimeout"/> (long enough for a case's own real-time waits,
    /// shortened or not).</summary>
    public static readonly TimeSpan ProvenCaseBound = TimeSpan.FromSeconds(2);

    /// <summary>The case bound this run judges <c>case-hung</c> on: <see cref="CaseTimeout"/>, or
    /// <see cref="ProvenCaseBound"/>.</summary>
    internal TimeSpan CaseBound => ProvenRules.Contains("case-hung") ? ProvenCaseBound : CaseTimeout;

    /// <summary>The idleness this run judges <c>not-flushed</c> on: <see cref="VisibilityBound"/>, or
    /// <see cref="ProvenRuleBound"/>.</summary>
    internal TimeSpan IdleBound => ProvenRules.Contains("not-flushed") ? ProvenRuleBound : VisibilityBound;

    /// <summary>The margin this run gives disposal beyond twice the drain timeout: <see cref="DisposeMargin"/>, or
    /// <see cref="ProvenRuleBound"/>.</summary>
    internal TimeSpan DisposeMarginFor => ProvenRules.Contains("dispose-hung") ? ProvenRuleBound : DisposeMargin;

    /// <summary>How long the harness waits, after completing the output, for the broker to have read everything before
    /// it aborts the connection: <see cref="CallTimeout"/>, or 1 s for a writer already proven broken (a writer stuck
    /// inside a write keeps the connection from ending, and only its evidence's last frames are at stake).</summary>
    internal TimeSpan EndConnectionBound => ProvenRules.Count > 0 ? TimeSpan.FromSeconds(1) : CallTimeout;

    /// <summary>The drain timeout this run gives the writer: <see cref="StalledDrainTimeout"/> when the output is
    /// stalled through disposal; else <see cref="WriterContext.DefaultDrainTimeout"/>, or
    /// <see cref="ProvenDrainTimeout"/> for a writer already proven broken. A writer's wait after giving up
    /// (<see cref="WriterContext.GiveUpWait"/>) is real time and at least the drain timeout: a writer whose lock a lost
    /// waiter holds for ever (Zoo:FifoLockCancelledWaiter) waited it out, 5 s, in nearly every case of its later
    /// properties. Giving up sooner is within every writer's contract, so a shorter timeout blames nothing.</summary>
    internal TimeSpan DrainTimeoutFor(bool stalledThroughDispose) =>
        stalledThroughDispose ? StalledDrainTimeout
        : ProvenRules.Count > 0 ? ProvenDrainTimeout
        : WriterContext.DefaultDrainTimeout;

    /// <summary>The drain timeout on a draining output for a writer already proven broken (200 ms).</summary>
    public static readonly TimeSpan ProvenDrainTimeout = TimeSpan.FromMilliseconds(200);

    /// <summary>How long a call still pending when disposal returned may take to end: <see cref="DisposeMargin"/>, or
    /// <see cref="ProvenRuleBound"/> for a writer proven to strand or hang calls.</summary>
    internal TimeSpan CallAfterDisposeMargin =>
        ProvenRules.Contains("call-hung") || ProvenRules.Contains("dispose-hung") ? ProvenRuleBound : DisposeMargin;

    /// <summary>Test seam: awaited by each free-running publisher (given its index) after the start signal and before
    /// its first call, so a test can hold a publisher back the way a loaded machine's scheduler does. Null in every
    /// real run.</summary>
    internal Func<int, Task>? BeforePublisherRuns { get; init; }

    /// <summary>Defaults.</summary>
    public static WriterRunOptions Default { get; } = new();
}
