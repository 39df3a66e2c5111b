using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Bodies;

/// <summary>
/// DELIBERATELY BROKEN: a background writer that completes on enqueue (<see cref="StagedZooWriter"/>) and, so as not to
/// rent one buffer per small message, copies bodies of up to <see cref="SmallBody"/> bytes into a per-connection arena
/// of <see cref="ArenaSize"/> bytes with a bump pointer (larger bodies, and small ones once the arena is full, get a
/// pooled copy of their own). It rewinds the arena when it finds nothing queued, "the loop has written everything".
/// That forgets the command the loop has taken off the queue and is still copying into the output, and a concurrent
/// caller that has staged its body in the arena but not yet queued it: the rewind hands their slot to the next body,
/// and the wire carries the newer message's bytes for the older one. One publisher whose calls do not overlap the
/// loop's write is served right.
/// </summary>
public sealed class ArenaResetWhenQueueEmptyWriter(WriterContext context)
    : StagedZooWriter(context, "arena-reset-when-queue-empty")
{
    /// <summary>The arena's length.</summary>
    public const int ArenaSize = 16 * 1024;

    /// <summary>The largest body copied into the arena.</summary>
    public const int SmallBody = 2048;

    private readonly object _gate = new();
    private byte[]? _arena;
    private int _offset;
    private bool _arenaGone;

    /// <inheritdoc />
    private protected override StagedCommand Stage(OutgoingCommand command)
    {
        if (command.BodyOwner is not null || command.Body.IsEmpty || command.Body.Length > SmallBody)
            return base.Stage(command);
        lock (_gate)
        {
            if (_arenaGone)
                return base.Stage(command);
            _arena ??= Context.Pool.Rent(ArenaSize);
            // BUG: "nothing queued" is not "nothing reads the arena": the loop's command in hand and a caller that
            // staged but has not queued yet both still do.
            if (QueuedCount == 0)
                _offset = 0;
            if (ArenaSize - _offset < command.Body.Length)
                return base.Stage(command);
            var slot = _arena.AsMemory(_offset, command.Body.Length);
            command.Body.CopyTo(slot);
            _offset += slot.Length;
            return StagedCommand.NoCopy(
                new OutgoingCommand(
                    command.Channel,
                    command.RentedFrames,
                    command.FramesLength,
                    command.HasContent,
                    slot
                )
            );
        }
    }

    /// <inheritdoc />
    private protected override async Task WriteLoopAsync(
        ChannelReader<StagedCommand> queue,
        List<StagedCommand> inHand,
        CancellationToken stop
    )
    {
        await base.WriteLoopAsync(queue, inHand, stop).ConfigureAwait(false);
        ReturnArena();
    }

    /// <inheritdoc />
    private protected override void LoopStopped(Exception reason, List<StagedCommand> inHand)
    {
        base.LoopStopped(reason, inHand);
        ReturnArena();
    }

    private void ReturnArena()
    {
        lock (_gate)
        {
            _arenaGone = true;
            if (_arena is not null)
                Context.Pool.Return(_arena);
            _arena = null;
        }
    }
}
