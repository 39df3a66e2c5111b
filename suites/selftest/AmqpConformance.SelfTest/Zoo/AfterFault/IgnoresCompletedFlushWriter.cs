using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that checks a flush result for <see cref="System.IO.Pipelines.FlushResult.IsCanceled"/>
/// but not for <see cref="System.IO.Pipelines.FlushResult.IsCompleted"/>. A transport that fails with an exception is handled
/// correctly; when the output's reader completes without an error (the peer closed in an orderly way), every call keeps
/// reporting success and writing bytes that nobody will read.
/// </summary>
public sealed class IgnoresCompletedFlushWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "ignores-completed-flush";
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
                var result = await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
                // BUG: IsCompleted (the reader is gone) is not checked, only IsCanceled.
                if (result.IsCanceled) throw new OperationCanceledException("The flush was cancelled.");
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
