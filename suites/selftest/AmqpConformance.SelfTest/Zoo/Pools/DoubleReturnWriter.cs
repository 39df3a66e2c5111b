using System.Buffers;
using AmqpConformance.Protocol;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that stages the body in a rented buffer; when the body needs more than one
/// body frame, the per-frame loop's cleanup returns the staging buffer after the last chunk, and the command's cleanup
/// returns it again (a double return; with a real pool, two later renters would share one array). Bodies that fit
/// one frame are handled correctly.
/// </summary>
public sealed class DoubleReturnWriter(WriterContext context) : IFrameWriter
{
    private readonly SemaphoreSlim _lock = new(1, 1);

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        int length = command.Body.Length;
        byte[] staging = context.Pool.Rent(length);
        try
        {
            command.Body.Span.CopyTo(staging);
            context.Output.Write(command.Frames.Span);
            int max = AmqpConstants.MaxBodyFramePayload(context.FrameMax);
            int frames = FrameFormat.BodyFrameCount(length, context.FrameMax);
            for (int i = 0, offset = 0; i < frames; i++, offset += max)
            {
                FrameFormat.WriteFrame(context.Output, FrameType.Body, command.Channel,
                    staging.AsSpan(offset, Math.Min(max, length - offset)));
                // BUG: "done with the staging buffer" after the last chunk of a multi-frame body...
                if (frames > 1 && i == frames - 1) context.Pool.Return(staging);
            }
            CommandFraming.ThrowIfNotDelivered(await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
        }
        finally
        {
            context.Pool.Return(staging); // ...and again here.
            command.Release(context.Pool);
            _lock.Release();
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _lock.WaitAsync(TimeSpan.FromSeconds(5)).ConfigureAwait(false);
    }
}
