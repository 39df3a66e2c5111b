using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Visibility;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that, to save flushes, flushes only on every fourth command, yet completes
/// every call as if its bytes had been handed to the output's reader. Up to three completed publishes sit unflushed in
/// the output until a later call or disposal flushes them; a publisher that sends one message and waits for its confirm
/// waits forever. Bursts of four or more look correct.
/// </summary>
public sealed class FlushEveryFourthWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "flush-every-fourth";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;
    private int _unflushed;

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
                // BUG: the flush is skipped for three commands out of four, but the call completes either way.
                if (++_unflushed >= 4)
                {
                    _unflushed = 0;
                    CommandFraming.ThrowIfNotDelivered(
                        await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                    );
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
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        if (await _lock.WaitAsync(context.DrainTimeout).ConfigureAwait(false))
        {
            try
            {
                if (_unflushed > 0 && Volatile.Read(ref _fault) is null)
                    await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
            }
            catch (Exception ex)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
            }
            finally
            {
                _lock.Release();
            }
            return;
        }
        Interlocked.CompareExchange(
            ref _fault,
            new TimeoutException("DisposeAsync gave up on the call in progress."),
            null
        );
        context.Output.CancelPendingFlush();
        if (await _lock.WaitAsync(context.DrainTimeout).ConfigureAwait(false))
            _lock.Release();
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
