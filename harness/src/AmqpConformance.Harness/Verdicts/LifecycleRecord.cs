namespace AmqpConformance.Harness.Verdicts;

/// <summary>How the harness disposed the writer, and what the writer did around it. Times are on the evidence's
/// clock.</summary>
/// <param name="DisposeInvokedAt">When the synchronous part of DisposeAsync had returned (a call that starts later
/// started after disposal began); null if the writer was never disposed.</param>
/// <param name="DisposeReturnedAt">When the task DisposeAsync returned completed; null if it did not within
/// <paramref name="Bound"/>.</param>
/// <param name="Bound">How long the harness waited for DisposeAsync on the evidence's clock.</param>
/// <param name="CallsPendingAtDispose">Calls that had started and not completed when disposal began.</param>
/// <param name="BytesWrittenAfterDispose">Bytes the writer committed to its output after DisposeAsync
/// completed.</param>
/// <param name="OutputStalledThroughDispose">Whether the harness kept the output from accepting anything until disposal
/// returned (so a writer that completes calls before flushing may legitimately drop them when it gives up).</param>
public sealed record LifecycleRecord(
    TimeSpan? DisposeInvokedAt,
    TimeSpan? DisposeReturnedAt,
    TimeSpan Bound,
    IReadOnlyList<int> CallsPendingAtDispose,
    long BytesWrittenAfterDispose,
    bool OutputStalledThroughDispose
)
{
    /// <summary>Whether DisposeAsync completed within <see cref="Bound"/> (with a second disposal, both
    /// calls).</summary>
    public bool DisposeCompleted => DisposeReturnedAt is not null;

    /// <summary>The real time the harness gave DisposeAsync beyond <see cref="Bound"/> (the factory's
    /// <see cref="Writers.FrameWriterFactory.DisposeTimeout"/>), or null when it held the writer to <see cref="Bound"/>
    /// alone (a writer already seen to hang in disposal).</summary>
    public TimeSpan? RealTimeBound { get; init; }

    /// <summary>How the harness called DisposeAsync a second time ("after the first returned", "alongside the first"),
    /// or null when it called it once. <see cref="DisposeReturnedAt"/> is then when both calls had completed.</summary>
    public string? SecondDisposal { get; init; }

    /// <summary>Flushes the writer started after DisposeAsync had returned (0 when the harness cannot tell).</summary>
    public int FlushesAfterDispose { get; init; }

    /// <summary>Whether a flush of the writer's was still pending when DisposeAsync returned, one it had not asked to
    /// end with CancelPendingFlush: disposal returned while the writer was still using its output.</summary>
    public bool FlushPendingWhenDisposeReturned { get; init; }

    /// <summary>What the (first) DisposeAsync threw (type and message), or null if it returned normally.</summary>
    public string? FirstDisposalFailure { get; init; }

    /// <summary>What the second DisposeAsync threw (type and message), or null if it returned normally (or there was
    /// none).</summary>
    public string? SecondDisposalFailure { get; init; }

    /// <summary>When the writer completed its output (Complete or CompleteAsync), which the connection owns and only it
    /// may do; null if the writer never did.</summary>
    public TimeSpan? OutputCompletedByWriterAt { get; init; }

    /// <summary>How far into disposal, in real time from when DisposeAsync was invoked, the harness last held the
    /// output (flushes waited until the script let them through with a pulse or released the output): when disposal
    /// returned if it was holding then, else when it last released it. Null when it did not hold the output while
    /// disposal ran, or disposal did not return.</summary>
    public TimeSpan? OutputHeldIntoDispose { get; init; }

    /// <summary>The real (wall-clock) time from when DisposeAsync was invoked to when it returned, or null when the
    /// harness did not measure it or disposal did not return.</summary>
    public TimeSpan? DisposeRealTime { get; init; }

    /// <summary>How long the process was kept from running (a loaded machine, a stopped process) while disposal ran, as
    /// the harness's lag meter counted it; null when not measured or disposal did not return.</summary>
    public TimeSpan? LagDuringDispose { get; init; }

    /// <summary>The least real time a disposal must have taken before giving up on what it had accepted, for the
    /// harness to take it for a give-up: 100 ms. A writer that drops its queue sooner did not wait for its output at
    /// all.</summary>
    public static TimeSpan GiveUpFloor { get; } = TimeSpan.FromMilliseconds(100);

    /// <summary>Whether a writer that completes calls on accept may have dropped what it held because it gave up
    /// draining, through no fault of its own: the harness kept the output stalled through disposal; or disposal
    /// returned at least <see cref="GiveUpFloor"/> of real time after it began, and either the harness still held the
    /// output <see cref="GiveUpFloor"/> or more into disposal, or the process had been kept from running for at least
    /// half of it. Both are how a writer on a timer of its own gives up (a <c>Thread.Join(TimeSpan)</c>, a
    /// <c>SemaphoreSlim.WaitAsync(TimeSpan)</c>): between a script's pulses the output takes nothing for as long as the
    /// harness takes to reach the next step, which on a loaded machine outlasted a correct writer's one-second join
    /// (Zoo:MonitorWaitThread, blamed for lost publishes in CI); and a stopped process expires such a timer the moment it
    /// runs again, before the writer's thread has. The hold is judged by when it last lasted, not by whether it lasted
    /// until disposal returned: a writer whose timer ran out while the output was held may return only after the
    /// harness's next step released it (its give-up still has to wake its thread and wait for its loop), and was blamed
    /// for that once in CI. A writer that gave up sooner than the floor did not wait for its output at all.</summary>
    public bool MayHaveGivenUpDraining =>
        OutputStalledThroughDispose
        || (
            DisposeRealTime is { } took
            && took >= GiveUpFloor
            && (OutputHeldIntoDispose >= GiveUpFloor || LagDuringDispose >= took / 2)
        );

    /// <summary>Whether disposal may explain how <paramref name="call"/> ended: it was pending when disposal began, or
    /// ended after that. A call ended then may be cancelled, whatever its token said.</summary>
    public bool MayHaveEndedCall(CallRecord call) =>
        DisposeInvokedAt is { } invoked && (call.Ended >= invoked || CallsPendingAtDispose.Contains(call.Id));
}
