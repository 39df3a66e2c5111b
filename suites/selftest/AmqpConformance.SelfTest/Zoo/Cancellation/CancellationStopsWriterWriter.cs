using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Cancellation;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer (a lock, then write and flush, complete after the flush) with one catch-all
/// around the wait for the lock, the write and the flush: "anything that goes wrong in here means the output is
/// broken". A caller whose token is cancelled while it waits for the lock (or was cancelled before it called) gets a
/// FrameWriterFaultedException instead of its cancellation, and the writer stops for good on a healthy connection:
/// every later call fails too.
/// </summary>
public sealed class CancellationStopsWriterWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "cancellation-stops-writer";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(context.Pool);
            throw early;
        }
        try
        {
            await _lock.WaitAsync(cancellationToken).ConfigureAwait(false); // BUG: the caller's cancellation lands in the catch below
            try
            {
                if (Stopped() is { } stopped)
                    throw stopped;
                CommandFraming.Write(context.Output, command, command.Body.Span, context.FrameMax);
                CommandFraming.ThrowIfNotDelivered(
                    await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                );
            }
            finally
            {
                _lock.Release();
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

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        await _lock
            .DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null))
            .ConfigureAwait(false);
    }
}
