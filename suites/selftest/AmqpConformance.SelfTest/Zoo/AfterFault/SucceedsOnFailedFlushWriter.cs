using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer (completes after its flush) that, when its output throws an
/// <see cref="IOException"/> (a reset, a closed transport, or a flush that reports the reader completed), stops for
/// good, so every later call fails, but reports success to the call whose write or flush hit the failure ("the
/// connection is going down; recovery will report it"). That command never reached the broker, or not whole, yet its
/// caller was told it was published. Everything else, the calls after the fault included, is the reference inline
/// writer's behaviour.
/// </summary>
/// <remarks>A transport fault explains a lost publish for a writer that completes on accept, so that excuse must not
/// cover this one: its factory declares <see cref="WriterCompletion.AfterFlush"/>, as its base writer does, and the
/// faults invariant's <c>succeeded-but-not-delivered</c> rule holds it to that.</remarks>
public sealed class SucceedsOnFailedFlushWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "succeeds-on-failed-flush";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        ThrowIfStopped(command);
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        try
        {
            ThrowIfStopped(command);
            try
            {
                CommandFraming.Write(context.Output, command, command.Body.Span, context.FrameMax);
                CommandFraming.ThrowIfNotDelivered(
                    await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                );
            }
            catch (IOException ex)
            {
                // BUG: the writer stops (later calls fail), but this call, whose bytes the failed flush did not
                // deliver, returns normally.
                Interlocked.CompareExchange(ref _fault, ex, null);
                command.Release(context.Pool);
                return;
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

    private void ThrowIfStopped(OutgoingCommand command)
    {
        if (ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed)) is { } stopped)
        {
            command.Release(context.Pool);
            throw stopped;
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
}
