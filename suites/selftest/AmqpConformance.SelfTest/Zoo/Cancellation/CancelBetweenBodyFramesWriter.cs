using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.Cancellation;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that flushes after the method and header frames and after each body frame (to
/// keep the output's buffer small for large bodies) and checks the caller's token between frames, "so a cancelled large
/// publish stops early". Every frame it writes is whole, but a cancellation that lands after the first flush leaves the
/// method, the header and some body frames on the wire and the rest never: an unfinished command, and the channel's
/// next method is then a protocol error. Bodiless publishes and tokens that fire before the lock is taken are handled
/// correctly.
/// </summary>
public sealed class CancelBetweenBodyFramesWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "cancel-between-body-frames";
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
            try
            {
                var output = context.Output;
                output.Write(command.Frames.Span);
                CommandFraming.ThrowIfNotDelivered(
                    await output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                );
                int max = AmqpConstants.MaxBodyFramePayload(context.FrameMax);
                var body = command.Body;
                while (!body.IsEmpty)
                {
                    // BUG: the token is honoured between body frames, after the method and header are already on the
                    // wire.
                    cancellationToken.ThrowIfCancellationRequested();
                    var chunk = body[..Math.Min(max, body.Length)];
                    FrameFormat.WriteFrame(output, FrameType.Body, command.Channel, chunk.Span);
                    CommandFraming.ThrowIfNotDelivered(
                        await output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                    );
                    body = body[chunk.Length..];
                }
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                command.Release(context.Pool);
                throw;
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
