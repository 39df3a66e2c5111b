using AmqpConformance.Protocol;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (unusual): an inline writer that flushes after the method and header frames and after every body frame, all under
/// one lock held for the whole command, so commands stay atomic while the output never buffers more than one frame.
/// Completes after the last flush; cancellation is honoured only while waiting for the lock (once the first frame is out the
/// command is finished whatever the token says); a fault stops the writer for good.
/// </summary>
public sealed class FlushPerFrameWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "flush-per-frame";
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
                CommandFraming.ThrowIfNotDelivered(await output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
                int max = AmqpConstants.MaxBodyFramePayload(context.FrameMax);
                var body = command.Body;
                while (!body.IsEmpty)
                {
                    var chunk = body[..Math.Min(max, body.Length)];
                    FrameFormat.WriteFrame(output, FrameType.Body, command.Channel, chunk.Span);
                    CommandFraming.ThrowIfNotDelivered(await output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
                    body = body[chunk.Length..];
                }
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
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        await _lock.DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null)).ConfigureAwait(false);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
