using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that gives ownership back as early as it can: it returns the rented frames
/// buffer as soon as the frames are copied into the output, and disposes the body owner as soon as it has taken the
/// body's last slice, but before that slice is copied into the output. With the owner disposed the caller's memory is
/// back in its pool, so the last body frame carries whatever the pool left there. Bodies without an owner are
/// unaffected.
/// </summary>
public sealed class OwnerDisposedBeforeLastFrameWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "owner-disposed-before-last-frame";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(context.Pool);
            throw early;
        }
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        try
        {
            if (Stopped() is { } stopped)
            {
                command.Release(context.Pool);
                throw stopped;
            }
            bool framesReturned = false,
                ownerDisposed = false;
            try
            {
                var output = context.Output;
                output.Write(command.Frames.Span);
                context.Pool.Return(command.RentedFrames);
                framesReturned = true;
                int max = AmqpConstants.MaxBodyFramePayload(context.FrameMax);
                var body = command.Body;
                while (!body.IsEmpty)
                {
                    var chunk = body[..Math.Min(max, body.Length)];
                    body = body[chunk.Length..];
                    // BUG: "that was the last slice": the owner is disposed before the slice is copied into the output.
                    if (body.IsEmpty && command.BodyOwner is { } owner)
                    {
                        owner.Dispose();
                        ownerDisposed = true;
                    }
                    FrameFormat.WriteFrame(output, FrameType.Body, command.Channel, chunk.Span);
                }
                if (!ownerDisposed)
                {
                    command.BodyOwner?.Dispose();
                    ownerDisposed = true;
                }
                CommandFraming.ThrowIfNotDelivered(
                    await output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                );
            }
            catch (Exception ex)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                if (!framesReturned)
                    context.Pool.Return(command.RentedFrames);
                if (!ownerDisposed)
                    command.BodyOwner?.Dispose();
                throw ZooHelpers.Faulted(Name, ex);
            }
        }
        finally
        {
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
