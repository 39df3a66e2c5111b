using System.Buffers;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.Interleaving;

/// <summary>
/// DELIBERATELY BROKEN: takes its lock once for the method and header frames and then once more for each body
/// frame, flushing in between, so two concurrent commands with bodies interleave their frames on the wire.
/// A single publisher, or bodiless commands, look correct; concurrent publishers with bodies expose it.
/// </summary>
public sealed class SplitLockWriter(WriterContext context) : IFrameWriter
{
    private readonly SemaphoreSlim _lock = new(1, 1);

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        try
        {
            context.Output.Write(command.Frames.Span);
            CommandFraming.ThrowIfNotDelivered(
                await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
            );
        }
        finally
        {
            _lock.Release();
        }
        // BUG: the body frames are written under separate lock acquisitions.
        int max = AmqpConstants.MaxBodyFramePayload(context.FrameMax);
        try
        {
            for (int offset = 0; offset < command.Body.Length; offset += max)
            {
                await _lock.WaitAsync(CancellationToken.None).ConfigureAwait(false);
                try
                {
                    var chunk = command.Body.Slice(offset, Math.Min(max, command.Body.Length - offset));
                    FrameFormat.WriteFrame(context.Output, FrameType.Body, command.Channel, chunk.Span);
                    CommandFraming.ThrowIfNotDelivered(
                        await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                    );
                }
                finally
                {
                    _lock.Release();
                }
                await Task.Yield();
            }
        }
        finally
        {
            command.Release(context.Pool);
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _lock.WaitAsync(TimeSpan.FromSeconds(5)).ConfigureAwait(false);
    }
}
