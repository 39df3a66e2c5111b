using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.QueueFull;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer (<see cref="InlineZooWriter"/>) with a write deadline of its own, 90 s on
/// <see cref="WriterContext.TimeProvider"/>, meant as "a write that makes no progress for 90 s is a dead connection",
/// but started when the call is made rather than when its own flush starts: time spent waiting for the lock behind
/// other calls' stalled flushes counts against it. A call queued behind flushes that a slow peer stalls one after
/// another for 90 s in all fails with a <see cref="TimeoutException"/> though its own write never waited long: still
/// waiting for the lock, it fails having written nothing; in its own flush, the writer cancels that flush and stops, as
/// on a dead connection. A deadline per flush (<see cref="Correct.WriteTimeoutWriter"/>, 30 s) or one counted from when
/// the call got the lock is correct. It shows only with a call queued behind flushes stalled one after another (a
/// script's stall train).
/// </summary>
public sealed class CallDeadlineIncludesWaitWriter(WriterContext context)
    : InlineZooWriter(context, "call-deadline-includes-wait")
{
    /// <summary>How long a call may take, from the moment it is made, before the writer gives up on it.</summary>
    public static TimeSpan CallDeadline { get; } = TimeSpan.FromSeconds(90);

    /// <summary>The deadline of the call that holds the lock, flowing from <see cref="WriteAsync"/> into
    /// <see cref="WriteAndFlushAsync"/>.</summary>
    private readonly AsyncLocal<CancellationToken> _deadline = new();

    /// <inheritdoc />
    public override async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        // BUG: the deadline starts here, before the wait for the lock, so every stalled flush ahead of this call counts
        // against it.
        using var deadline = new CancellationTokenSource(CallDeadline, Context.TimeProvider);
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, deadline.Token);
        _deadline.Value = deadline.Token;
        try
        {
            await base.WriteAsync(command, linked.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
            when (deadline.IsCancellationRequested && !cancellationToken.IsCancellationRequested)
        {
            throw new TimeoutException($"The write did not complete within {CallDeadline.TotalSeconds:0} s.");
        }
    }

    /// <inheritdoc />
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        var output = Context.Output;
        WriteCommand(output, command, Context.FrameMax);
        bool timedOut = false;
        using (
            _deadline.Value.Register(() =>
            {
                Volatile.Write(ref timedOut, true);
                output.CancelPendingFlush();
            })
        )
        {
            var result = await output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
            if (result.IsCanceled && Volatile.Read(ref timedOut))
                throw new TimeoutException($"The write did not complete within {CallDeadline.TotalSeconds:0} s.");
            CommandFraming.ThrowIfNotDelivered(result);
        }
    }
}
