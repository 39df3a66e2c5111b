using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.QueueFull;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer with an in-flight byte budget (<see cref="Budget"/> bytes): a call reserves its
/// command's wire length (at most <see cref="MaxReservation"/>) before it writes and gives it back once the flush
/// returned, but gives back 8 bytes less per body frame (it forgets the frame overhead of the body frames). The budget
/// shrinks by 8 bytes per body frame written, so after about 30,700 body frames (about 32,750 calls of one body frame)
/// a call waits for ever for budget nobody will give back. A case of the default gate writes far fewer body frames on
/// one writer, so only a soak (<c>run --soak</c>) reaches it: it is in <see cref="SoakZoo"/>, not in
/// <see cref="ZooWriters.All"/>.
/// </summary>
/// <param name="context">The writer's context.</param>
public sealed class LeakyInFlightBudgetWriter(WriterContext context)
    : InlineZooWriter(context, "leaky-in-flight-budget")
{
    /// <summary>The in-flight byte budget: 256 KiB.</summary>
    public const long Budget = 256 * 1024;

    /// <summary>The most one command reserves (a larger one goes out in pieces of the budget, as it were): 16 KiB, so
    /// a large body does not need the whole budget and only the leak, not one case's bodies, exhausts it.</summary>
    public const long MaxReservation = 16 * 1024;

    private readonly object _gate = new();
    private long _available = Budget;
    private TaskCompletionSource _freed = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <inheritdoc />
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        long cost = command.WireLength(Context.FrameMax);
        await ReserveAsync(Math.Min(cost, MaxReservation)).ConfigureAwait(false);
        try
        {
            await base.WriteAndFlushAsync(command).ConfigureAwait(false);
        }
        finally
        {
            // BUG: the body frames' 8 bytes of overhead (header and frame-end) are left out of what is given back.
            long bodyFrames = FrameFormat.BodyFrameCount(command.Body.Length, Context.FrameMax);
            Free(Math.Min(cost, MaxReservation) - 8 * bodyFrames);
        }
    }

    private async ValueTask ReserveAsync(long bytes)
    {
        while (true)
        {
            Task freed;
            lock (_gate)
            {
                if (_available >= bytes)
                {
                    _available -= bytes;
                    return;
                }
                freed = _freed.Task;
            }
            await freed.ConfigureAwait(false);
        }
    }

    private void Free(long bytes)
    {
        TaskCompletionSource signal;
        lock (_gate)
        {
            _available += bytes;
            signal = _freed;
            _freed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        }
        signal.TrySetResult();
    }
}
