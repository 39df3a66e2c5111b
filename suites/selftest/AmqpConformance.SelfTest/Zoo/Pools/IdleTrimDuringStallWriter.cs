using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: a one-buffer-per-command inline writer that keeps its staging buffer for the connection's life
/// (no rent per publish) and serializes each command whole into it under its lock, then hands it to the pipe in pieces
/// of 16 KiB with a flush after each piece, so that a large publish never piles up in the pipe. So that an idle
/// connection does not pin a large array, a trim timer (on <see cref="WriterContext.TimeProvider"/>, every 10 s)
/// returns the staging buffer to the pool once no call has started for 10 s. The timer takes "no call started for 10 s"
/// for "no call in progress" and does not take the lock: a call whose flush is stalled for 10 s (a peer that stopped
/// reading, in the middle of a large publish) has its staging buffer returned under it, and its remaining pieces are
/// read from an array that is back in the pool (poisoned, or already another renter's). Idle connections are trimmed
/// right, and every call that is not stalled across a timer tick is right.
/// </summary>
public sealed class IdleTrimDuringStallWriter : InlineZooWriter
{
    /// <summary>How long a connection is idle before its staging buffer goes back to the pool, and the timer's
    /// period.</summary>
    public static readonly TimeSpan TrimAfter = TimeSpan.FromSeconds(10);

    private const int Piece = 16 * 1024;
    private readonly ITimer _trim;
    private byte[]? _staging;
    private long _lastCallStarted;
    private int _disposing;

    /// <summary>Creates the writer and starts its trim timer.</summary>
    public IdleTrimDuringStallWriter(WriterContext context)
        : base(context, "idle-trim-during-stall")
    {
        ArgumentNullException.ThrowIfNull(context);
        _lastCallStarted = context.TimeProvider.GetTimestamp();
        _trim = context.TimeProvider.CreateTimer(
            static s => ((IdleTrimDuringStallWriter)s!).Trim(),
            this,
            TrimAfter,
            TrimAfter
        );
    }

    /// <inheritdoc />
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        Volatile.Write(ref _lastCallStarted, Context.TimeProvider.GetTimestamp());
        int length = checked((int)command.WireLength(Context.FrameMax));
        byte[]? staging = Volatile.Read(ref _staging);
        if (staging is null || staging.Length < length)
        {
            if (staging is not null)
                Context.Pool.Return(staging);
            staging = Context.Pool.Rent(length);
            Volatile.Write(ref _staging, staging);
        }
        ZooHelpers.WriteWholeCommand(staging, command, Context.FrameMax);
        for (int offset = 0; offset < length; offset += Piece)
        {
            // BUG (with Trim): the staging buffer is read again after every flush, and Trim may have returned it
            // meanwhile.
            Context.Output.Write(staging.AsSpan(offset, Math.Min(Piece, length - offset)));
            CommandFraming.ThrowIfNotDelivered(
                await Context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
            );
        }
    }

    private void Trim()
    {
        // BUG: "no call started for TrimAfter" is not "no call in progress", and the lock is not taken.
        if (Context.TimeProvider.GetElapsedTime(Volatile.Read(ref _lastCallStarted)) < TrimAfter)
            return;
        if (Interlocked.Exchange(ref _staging, null) is { } idle)
            Context.Pool.Return(idle);
    }

    /// <inheritdoc />
    public override async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposing, 1) != 0)
            return;
        await _trim.DisposeAsync().ConfigureAwait(false);
        await base.DisposeAsync().ConfigureAwait(false);
        if (Interlocked.Exchange(ref _staging, null) is { } staging)
            Context.Pool.Return(staging);
    }
}
