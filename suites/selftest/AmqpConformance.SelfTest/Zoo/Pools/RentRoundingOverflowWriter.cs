using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: A one-buffer-per-command writer (serialize the whole command into one pooled buffer, one Write, one flush
/// under a lock) that sizes the buffer by hand: frames + body + 8 bytes of framing per body frame, counting the body frames as
/// body / (frame_max - 8), which forgets the last, partial frame. The buffer is 8 bytes short for almost every body, and nobody
/// notices because ArrayPool rounds a rental up to a power of two: it only overflows when the computed length falls in the last 8
/// bytes below a power of two. Then serializing throws (ArgumentException from the copy), the call fails on a healthy connection,
/// and the command (and the staging buffer) are never given back.
/// </summary>
public sealed class RentRoundingOverflowWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "rent-rounding-overflow";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    /// <inheritdoc />
    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(context.Pool);
            throw early;
        }
        int max = AmqpConstants.MaxBodyFramePayload(context.FrameMax);
        int bodyFrames = command.Body.Length / max; // BUG: should round up
        int length = command.FramesLength + command.Body.Length + bodyFrames * AmqpConstants.FrameOverhead;
        byte[] image = context.Pool.Rent(length);
        int written = ZooHelpers.WriteWholeCommand(image, command, context.FrameMax); // throws when the rounding did not cover it
        try
        {
            await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
            try
            {
                if (Stopped() is { } stopped)
                {
                    command.Release(context.Pool);
                    throw stopped;
                }
                try
                {
                    context.Output.Write(image.AsSpan(0, written));
                    CommandFraming.ThrowIfNotDelivered(await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
                }
                catch (Exception ex)
                {
                    Interlocked.CompareExchange(ref _fault, ex, null);
                    command.Release(context.Pool);
                    throw ZooHelpers.Faulted(Name, ex);
                }
                command.Release(context.Pool);
            }
            finally
            {
                _lock.Release();
            }
        }
        finally
        {
            context.Pool.Return(image);
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        await _lock.DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null)).ConfigureAwait(false);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
