using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Cancellation;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that passes the caller's token to FlushAsync, so a publish stuck behind a
/// stalled output can be cancelled, and reports such a flush as the call's cancellation. But by then the frames are in
/// the output: a flush cancelled while pending has already committed them, and one whose token was cancelled as it
/// started leaves them buffered, to go out with the next call's flush. Either way the caller sees
/// <see cref="OperationCanceledException"/> for a publish that reaches the broker. Tokens that fire before the lock is
/// taken, or never, are handled correctly.
/// </summary>
public sealed class FlushWithCallerTokenWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "flush-with-caller-token";
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
                CommandFraming.Write(context.Output, command, command.Body.Span, context.FrameMax);
                // BUG: the caller's token reaches the flush; its cancellation is reported as "not sent" though the
                // frames are in the output.
                CommandFraming.ThrowIfNotDelivered(
                    await context.Output.FlushAsync(cancellationToken).ConfigureAwait(false)
                );
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
