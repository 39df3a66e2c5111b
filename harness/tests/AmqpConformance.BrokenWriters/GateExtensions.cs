using System.Buffers;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.BrokenWriters;

/// <summary>The one thing the broken writers do correctly alike: wait for their lock, and if that wait is
/// cancelled, release the command (they own it from the call on) before the cancellation propagates.</summary>
internal static class GateExtensions
{
    public static async ValueTask EnterOrReleaseAsync(this SemaphoreSlim gate, OutgoingCommand command, ArrayPool<byte> pool,
        CancellationToken cancellationToken)
    {
        try
        {
            await gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            command.Release(pool);
            throw;
        }
    }
}
