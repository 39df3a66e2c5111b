using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Cancellation;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that lets the caller abort a slow flush by registering
/// <see cref="PipeWriter.CancelPendingFlush"/> on the caller's token for the duration of the flush, and reports a
/// cancelled flush (<see cref="FlushResult.IsCanceled"/>) as the call's cancellation. But a flush commits its bytes
/// before it waits, so the "cancelled" publish still reaches the broker; and a cancellation that lands just before the
/// flush starts is remembered by the pipe and cancels that flush at once. A token that never fires, or fires before the
/// lock is taken, is handled correctly.
/// </summary>
public sealed class CancelPendingFlushOnTokenWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "cancel-pending-flush-on-token";
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
            FlushResult result;
            try
            {
                CommandFraming.Write(context.Output, command, command.Body.Span, context.FrameMax);
                // BUG: the caller's token cancels the pending flush, and a cancelled flush is reported as "not sent";
                // but its bytes are committed.
                using (
                    cancellationToken.UnsafeRegister(static o => ((PipeWriter)o!).CancelPendingFlush(), context.Output)
                )
                    result = await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
                if (result.IsCompleted)
                    throw new IOException("The output's reader has completed.");
            }
            catch (Exception ex)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                command.Release(context.Pool);
                throw ZooHelpers.Faulted(Name, ex);
            }
            command.Release(context.Pool);
            if (result.IsCanceled)
                throw new OperationCanceledException(
                    "The publish was cancelled while its flush was pending.",
                    cancellationToken
                );
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
