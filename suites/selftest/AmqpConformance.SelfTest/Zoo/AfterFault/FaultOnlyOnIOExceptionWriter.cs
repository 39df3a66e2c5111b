using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer (lock, write, flush, release) that tells a dead connection from a bad command by the
/// exception's type: an <see cref="IOException"/> from the write or the flush (a reset, a broken pipe, a reader that completed),
/// or a cancelled flush (disposal giving up), stops the writer for good, while any other exception "is a bug in this command, not the connection's": it fails that call with
/// the exception as it came and leaves the writer running. A transport that fails with something else (a
/// <see cref="System.Net.Sockets.SocketException"/> straight from a socket, an <see cref="ObjectDisposedException"/> from a
/// disposed stream, an <see cref="InvalidOperationException"/> from a completed pipe) leaves the writer writing into the failed
/// output, and later calls succeed or fail one by one instead of all failing with <see cref="FrameWriterFaultedException"/>.
/// </summary>
public sealed class FaultOnlyOnIOExceptionWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "fault-only-on-ioexception";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    /// <inheritdoc />
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
                CommandFraming.ThrowIfNotDelivered(await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
            }
            catch (Exception ex) when (ex is IOException or OperationCanceledException)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                command.Release(context.Pool);
                throw ZooHelpers.Faulted(Name, ex);
            }
            catch
            {
                // BUG: only an IOException is taken for the connection's failure; anything else fails this call alone.
                command.Release(context.Pool);
                throw;
            }
            command.Release(context.Pool);
        }
        finally
        {
            _lock.Release();
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        await _lock.DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null)).ConfigureAwait(false);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
