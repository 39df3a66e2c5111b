using System.Buffers;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that stages the body in a rented buffer; when the body needs more than one
/// body frame, the per-frame loop's cleanup returns the staging buffer after the last chunk, and the command's cleanup
/// returns it again (a double return; with a real pool, two later renters would share one array). Bodies that fit
/// one frame are handled correctly, and so are faults, disposal and calls after either.
/// </summary>
public sealed class DoubleReturnWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "double-return";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        if (Stopped() is { } stopped)
        {
            command.Release(context.Pool);
            _lock.Release();
            throw stopped;
        }
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
                FrameFormat.WriteFrame(
                    context.Output,
                    FrameType.Body,
                    command.Channel,
                    staging.AsSpan(offset, Math.Min(max, length - offset))
                );
                // BUG: "done with the staging buffer" after the last chunk of a multi-frame body...
                if (frames > 1 && i == frames - 1)
                    context.Pool.Return(staging);
            }
            try
            {
                CommandFraming.ThrowIfNotDelivered(
                    await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                );
            }
            catch (Exception ex)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                throw ZooHelpers.Faulted(Name, ex);
            }
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
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        await _lock
            .DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null))
            .ConfigureAwait(false);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
