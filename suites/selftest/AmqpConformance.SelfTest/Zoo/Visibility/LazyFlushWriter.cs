using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Visibility;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that coalesces flushes by flushing the previous call's bytes at the start of
/// the next call, then writes its own command and completes without flushing it. During a burst every command goes out
/// one call late, which looks fine; the last publish before a pause (and the last one before disposal, which does not
/// flush either) stays in the output's buffer although its call reported success.
/// </summary>
public sealed class LazyFlushWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "lazy-flush";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;
    private bool _dirty;

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
                if (_dirty)
                {
                    _dirty = false;
                    CommandFraming.ThrowIfNotDelivered(
                        await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                    );
                }
                CommandFraming.Write(context.Output, command, command.Body.Span, context.FrameMax);
                // BUG: this command's flush is left to the next call ("one flush per call either way"); the call
                // completes now.
                _dirty = true;
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
