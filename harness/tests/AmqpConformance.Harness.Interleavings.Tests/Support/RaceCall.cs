using System.Buffers;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Harness.Interleavings.Tests.Support;

/// <summary>A call the races make: one command without content whose 8 bytes of frames are the channel number repeated
/// (the outputs do not parse them; <see cref="CancelRace"/> counts them), rented from the pool the writer releases
/// to.</summary>
public static class RaceCall
{
    /// <summary>The command's frame bytes: 8, each the channel number.</summary>
    public const int Length = 8;

    /// <summary>Calls <paramref name="writer"/> with the command for <paramref name="channel"/> and reports how the
    /// call ended: null on success, else the exception.</summary>
    /// <remarks>The call's ValueTask is awaited where it is made: the Coyote 1.7.11 rewriter emits invalid code for a
    /// ValueTask passed straight from one call into another (InvalidProgramException at run time).</remarks>
    public static async Task<Exception?> MakeAsync(
        IFrameWriter writer,
        ArrayPool<byte> pool,
        ushort channel,
        CancellationToken token = default
    )
    {
        byte[] frames = pool.Rent(Length);
        frames.AsSpan(0, Length).Fill((byte)channel);
        try
        {
            await writer
                .WriteAsync(new OutgoingCommand(channel, frames, Length, hasContent: false), token)
                .ConfigureAwait(false);
            return null;
        }
        catch (Exception ex)
        {
            return ex;
        }
    }
}
